//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// paceServer is a chat_completions endpoint that streams "stream" replies
// at 100 tokens a second for 10 seconds and answers anything else at once
// with "done-N", N counting the user's messages.
// asked reports the most user messages a request carried so far.
func paceServer(tb testing.TB) (srv *httptest.Server, asked func() int64) {
	var most atomic.Int64
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if len(req.Messages) == 0 {
			http.Error(w, "no messages", http.StatusBadRequest)
			return
		}
		id := 0
		for _, m := range req.Messages {
			if m.Role == "user" {
				id++
			}
		}
		if int64(id) > most.Load() {
			most.Store(int64(id))
		}
		last := fmt.Sprint(req.Messages[len(req.Messages)-1].Content)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta string, finish any) {
			b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "test-model",
				"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": delta}, "finish_reason": finish}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		if strings.Contains(last, "stream") {
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for i := range 1000 {
				if i%12 == 11 {
					chunk("\n\n", nil)
				}
				chunk("lorem ", nil)
				select {
				case <-tick.C:
				case <-r.Context().Done():
					return
				}
			}
		} else {
			chunk("done-"+strconv.Itoa(id), nil)
		}
		chunk("", "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	tb.Cleanup(srv.Close)
	return srv, most.Load
}

// ptyScreen collects what hermes writes to the terminal, noting when
// each byte arrived.
type ptyScreen struct {
	mu  sync.Mutex
	out []byte
	at  []time.Time // arrival of each read, by the offset it ended at
	end []int
	new chan struct{}
}

func (s *ptyScreen) read(f *os.File) {
	buf := make([]byte, 64*1024)
	for {
		k, err := f.Read(buf)
		if k > 0 {
			s.mu.Lock()
			s.out = append(s.out, buf[:k]...)
			s.at = append(s.at, time.Now())
			s.end = append(s.end, len(s.out))
			s.mu.Unlock()
			select {
			case s.new <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// waitAfter waits until want appears in the output past offset from, and
// returns when the read that carried it arrived.
func (s *ptyScreen) waitAfter(tb testing.TB, from int, want string) time.Time {
	deadline := time.After(30 * time.Second)
	for {
		s.mu.Lock()
		if i := bytes.Index(s.out[from:], []byte(want)); i >= 0 {
			stop := from + i + len(want)
			k, _ := slices.BinarySearch(s.end, stop)
			t := s.at[k]
			s.mu.Unlock()
			return t
		}
		s.mu.Unlock()
		select {
		case <-s.new:
		case <-time.After(5 * time.Millisecond):
		case <-deadline:
			tb.Fatalf("the terminal never showed %q", want)
		}
	}
}

func (s *ptyScreen) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.out)
}

// BenchmarkTUI measures the chat interface on a pseudo-terminal of
// 120×40: the time from starting `hermes chat` to its first frame, the
// time from a key to its echo while a reply streams at 100 tokens a
// second (p50, p99), and the process's resident memory after a session
// of 500 messages. Run it with -benchtime=1x.
func BenchmarkTUI(b *testing.B) {
	for range b.N {
		master, slave := openPTY(b)
		ws := struct{ rows, cols, x, y uint16 }{40, 120, 0, 0}
		syscall.Syscall(syscall.SYS_IOCTL, slave.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
		dir := b.TempDir()
		srv, asked := paceServer(b)
		cmd := exec.Command(hermesBin, "chat", "--api-mode", "chat_completions", "--base-url", srv.URL+"/v1",
			"--model", "test-model", "--api-key", "sk-test-123456")
		cmd.Env = []string{"HERMES_HOME=" + dir, "HOME=" + dir, "PATH=" + os.Getenv("PATH"), "HERMES_MEMORY_LONG_TERM=false", "TERM=xterm-256color"}
		cmd.Dir = dir
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		s := &ptyScreen{new: make(chan struct{}, 1)}
		go s.read(master)
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		first := s.waitAfter(b, 0, "new session")
		b.ReportMetric(float64(first.Sub(start).Milliseconds()), "ms-to-first-frame")

		master.WriteString("stream\r")
		s.waitAfter(b, 0, "lorem")
		keys := []rune("абвгдежзийклмнопрсту")
		var lat []time.Duration
		for i := range 300 {
			k := string(keys[i%len(keys)])
			from := s.len()
			sent := time.Now()
			master.WriteString(k)
			lat = append(lat, s.waitAfter(b, from, k).Sub(sent))
			master.WriteString("\x7f")
			time.Sleep(10 * time.Millisecond) // keys at a typist's pace
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-echo-p50")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "ms-echo-p99")

		// 249 more exchanges: a line sent while the last turn is still
		// finishing is not taken; it is cleared and sent again.
		for i := int64(2); i <= 250; {
			master.WriteString(strings.Repeat("\x7f", 8) + "hi\r")
			deadline := time.Now().Add(500 * time.Millisecond)
			for asked() < i && time.Now().Before(deadline) {
				time.Sleep(2 * time.Millisecond)
			}
			if asked() >= i {
				i++
			}
		}
		s.waitAfter(b, 0, "done-250")
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		for _, l := range strings.Split(string(status), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.Atoi(f[1])
				b.ReportMetric(float64(kb)/1024, "MB-RSS-500-messages")
			}
		}
	}
}
