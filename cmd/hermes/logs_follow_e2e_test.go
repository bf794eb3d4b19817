package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// hermes logs -f prints the lines written after it started, escaped, and
// goes on from the start of a new file after a rotation.
func TestLogsFollow(t *testing.T) {
	h := newHome(t)
	path := filepath.Join(h.dir, "logs", "hermes.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("logs/hermes.log", "level=INFO msg=before\n")
	cmd := exec.Command(hermesBin, "logs", "-f", "-n", "1")
	cmd.Env = h.env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(want string) {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok || l != want {
				t.Fatalf("hermes logs -f printed %q (open %v), want %q", l, ok, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("hermes logs -f did not print %q", want)
		}
	}
	appendLog := func(p, text string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Close()
	}
	next("level=INFO msg=before")
	appendLog(path, "level=WARN msg=\"\x1b[31mred\"\n")
	next(`level=WARN msg="\x1b[31mred"`)
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendLog(path, "level=INFO msg=rotated\n")
	next("level=INFO msg=rotated")
}
