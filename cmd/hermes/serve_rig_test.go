package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// startServe starts hermes serve in h (in h.cwd when set) with its log
// kept, and stops it when the test ends or when stop is called: SIGINT,
// then a kill after 10 s, which fails the test. The log is shown when the
// test failed, and the test fails when it holds any of secrets.
func startServe(t *testing.T, h *home, secrets ...string) (stop func(), logs *syncBuffer) {
	t.Helper()
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	if h.cwd != "" {
		cmd.Dir = h.cwd
	}
	logs = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = serveStopper(t, cmd, logs, secrets...)
	t.Cleanup(stop)
	return stop, logs
}

// serveStopper returns a function that stops serve (SIGINT, then a kill
// after 10 s, which fails the test) once, shows its log when the test
// failed, and fails the test when the log holds any of secrets.
func serveStopper(t *testing.T, cmd *exec.Cmd, logs *syncBuffer, secrets ...string) func() {
	return sync.OnceFunc(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("hermes serve did not stop on SIGINT")
		}
		if t.Failed() {
			t.Logf("serve's log:\n%s", logs.String())
		}
		for _, secret := range secrets {
			if secret != "" && strings.Contains(logs.String(), secret) {
				t.Errorf("a secret (%d characters) is in serve's log", len(secret))
			}
		}
	})
}

// waitSent waits until one of the messages sent returns holds want, as
// text reads it, and returns it; wait is the platform test server's own
// Wait, so nothing sleeps. where names the chat in the failure.
func waitSent[M any](t *testing.T, wait func(context.Context, func() bool) error, sent func() []M, text func(M) string, where, want string) M {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var found M
	err := wait(ctx, func() bool {
		for _, m := range sent() {
			if strings.Contains(text(m), want) {
				found = m
				return true
			}
		}
		return false
	})
	if err != nil {
		var got []string
		for _, m := range sent() {
			got = append(got, text(m))
		}
		t.Fatalf("no message to %s holds %q; hermes sent %q", where, want, got)
	}
	return found
}
