//go:build unix

package procgrouptest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// NewFifo makes a named pipe in a fresh directory, for a command to
// report a pid on (echo $! > FIFO): reading it returns the moment the
// command wrote, with no clock involved.
func NewFifo(t testing.TB) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return fifo
}

// ReadPid reads the pid a command writes to fifo, failing the test when
// nothing is written within limit.
func ReadPid(t testing.TB, fifo string, limit time.Duration) int {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	select {
	case s := <-got:
		pid, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			t.Fatalf("read %q from %s, want a pid", s, fifo)
		}
		return pid
	case <-time.After(limit):
		t.Fatalf("nothing wrote a pid to %s within %s", fifo, limit)
		return 0
	}
}
