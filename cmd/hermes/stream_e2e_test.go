package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// watchHWM follows the peak resident set (VmHWM in /proc/PID/status) of
// process pid until it exits, and returns a function giving the last
// peak seen, in bytes. ru_maxrss from wait4 cannot be used: the child
// is started with CLONE_VM, so at exec it inherits the peak of the test
// binary, which other tests in it (hundreds of model requests kept)
// may have made large.
func watchHWM(pid int) func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil {
				return // gone
			}
			for line := range strings.Lines(string(b)) {
				var kib int64
				if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kib); err == nil && kib<<10 > peak.Load() {
					peak.Store(kib << 10)
				}
			}
			if strings.Contains(string(b), "State:\tZ") {
				return // exited, not yet reaped
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return func() int64 {
		select {
		case <-done:
		case <-time.After(time.Second):
		}
		return peak.Load()
	}
}

// bytesRead is how many bytes process pid has read so far (rchar in
// /proc/PID/io): its reads of the model's stream, mostly.
func bytesRead(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var n int64
		if _, err := fmt.Sscanf(sc.Text(), "rchar: %d", &n); err == nil {
			return n
		}
	}
	return 0
}

// A model that streams for ever once made hermes grow to gigabytes: the
// reply is now cut at its size cap, the chat exits 1 with a clear error,
// and its memory stays small all along.
func TestChatEndlessStreamIsCut(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Endless: llmtest.EndlessText, ChunkSize: 16 << 10})
	cmd := chatCommand(h, srv, "-q", "write for ever")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hwm := watchHWM(cmd.Process.Pid)
	err := cmd.Wait()
	took := time.Since(start)
	peak := hwm()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "reply_too_large") || !strings.Contains(stderr.String(), "cut the stream") {
		t.Errorf("stderr does not say the reply was cut:\n%s", stderr.String())
	}
	if took > 15*time.Second {
		t.Errorf("the chat took %s to give up on the stream", took)
	}
	// The peak resident set (VmHWM) peaks at 53–68 MiB on a quiet
	// machine; with the whole suite running beside it, the collector
	// falls behind the 8 MiB reply and the peak has reached 107 MiB.
	// Reading the stream without the cap grew to gigabytes: the bound
	// tells the two apart, not the load.
	t.Logf("cut after %s, peak RSS %d MiB", took.Round(time.Millisecond), peak>>20)
	if peak > 160<<20 {
		t.Errorf("hermes grew to %d MiB reading the stream, want under 160", peak>>20)
	}
	var list []struct {
		MessageCount int `json:"message_count"`
	}
	h.hermes("sessions", "list", "--json").decode(t, &list)
	if len(list) != 1 || list[0].MessageCount != 1 {
		t.Errorf("sessions %+v, want one holding the question", list)
	}
}

// SIGTERM while a reply streams in fast ends the chat within its grace,
// even when saving the partial reply cannot go through (another process
// keeps state.db's write lock).
func TestChatSIGTERMMidStreamEndsWithinGrace(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Endless: llmtest.EndlessText})
	cmd := chatCommand(h, srv, "-q", "write for ever")
	stopMidStream(t, h, cmd, nil, syscall.SIGTERM)
}

// In a conversation, Ctrl-C interrupts the turn; one that cannot stop
// within the grace ends the chat rather than hold it.
func TestChatCtrlCMidStreamEndsWithinGrace(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Endless: llmtest.EndlessText})
	cmd := chatCommand(h, srv)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stopMidStream(t, h, cmd, func() { stdin.Write([]byte("write for ever\n")) }, os.Interrupt)
}

// stopMidStream starts cmd, asks (when ask is set), waits until the
// model's endless reply is streaming in, takes state.db's write lock as
// another process would, sends sig and checks that hermes exits 130
// within the grace.
func stopMidStream(t *testing.T, h *home, cmd *exec.Cmd, ask func(), sig os.Signal) {
	t.Helper()
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if ask != nil {
		ask()
	}
	deadline := time.Now().Add(20 * time.Second)
	for bytesRead(cmd.Process.Pid) < 4<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("the stream never got going; stderr:\n%s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}

	db, err := sqlitedb.Open(context.Background(), filepath.Join(h.dir, "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	go db.WriteTx(context.Background(), "hold the write lock", func(*sql.Tx) error {
		once.Do(func() { close(held) })
		<-release
		return nil
	})
	<-held
	defer close(release)

	start := time.Now()
	cmd.Process.Signal(sig)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err2 error
	select {
	case err2 = <-exited:
	case <-time.After(turnGrace + 10*time.Second):
		t.Fatalf("hermes was still running %s after the signal\n%s", time.Since(start), stderr.String())
	}
	took := time.Since(start)
	var ee *exec.ExitError
	if !errors.As(err2, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130\n%s", err2, stderr.String())
	}
	t.Logf("exited %s after the signal", took.Round(time.Millisecond))
	if took > turnGrace+2*time.Second {
		t.Errorf("hermes took %s to exit after the signal; the grace is %s\n%s", took, turnGrace, stderr.String())
	}
}
