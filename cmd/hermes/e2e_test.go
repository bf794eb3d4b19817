package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/pgtest"
)

// These tests run the real hermes binary, built once for the package, the
// way a person runs it: in a fresh HERMES_HOME, against the scripted model
// server (llm/llmtest) speaking the real wire protocols.

var hermesBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hermes-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hermesBin = filepath.Join(dir, "hermes")
	build := exec.Command("go", "build", "-o", hermesBin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build hermes: %v\n%s", err, out)
		os.Exit(1)
	}
	// pgtest.Main runs the tests and stops the PostgreSQL server the
	// replica tests share, if one was started.
	code := pgtest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// home is a hermes home directory for one test.
type home struct {
	t   testing.TB
	dir string
	env []string
	// cwd is the directory hermes runs in; empty means the test's own.
	cwd string
}

func newHome(t testing.TB) *home {
	dir := t.TempDir()
	// Only what a clean machine would have: no provider keys leak in from
	// the developer's environment.
	// Long-term memory adds a model call when a chat ends; the tests that
	// count calls leave it off, and the one about it turns it on.
	return &home{t: t, dir: dir, env: []string{"HERMES_HOME=" + dir, "HOME=" + dir, "PATH=" + os.Getenv("PATH"),
		"HERMES_MEMORY_LONG_TERM=false"}}
}

func (h *home) write(name, content string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.dir, name), []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs hermes with args and optional extra environment (KEY=VALUE).
func (h *home) run(args []string, extraEnv ...string) result {
	h.t.Helper()
	cmd := exec.Command(hermesBin, args...)
	cmd.Env = append(append([]string{}, h.env...), extraEnv...)
	cmd.Dir = h.cwd
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatalf("run hermes %v: %v", args, err)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		h.t.Fatalf("hermes %v crashed:\n%s", args, r.stderr)
	}
	return r
}

func (h *home) hermes(args ...string) result { return h.run(args) }

// decode parses stdout as one JSON object.
func (r result) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
}

func TestVersion(t *testing.T) {
	r := newHome(t).hermes("version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "hermes ") || !strings.Contains(r.stdout, "commit ") || !strings.Contains(r.stdout, "go1.") {
		t.Fatalf("version printed %q (exit %d)", r.stdout, r.code)
	}
}

func TestBareHermesWithoutProviderSaysWhatToSet(t *testing.T) {
	h := newHome(t)
	r := h.hermes()
	if r.code != 0 {
		t.Errorf("exit %d, want 0", r.code)
	}
	for _, want := range []string{"OPENROUTER_API_KEY", filepath.Join(h.dir, ".env"), "hermes config set model.provider ollama"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("guidance does not mention %q:\n%s", want, r.stdout)
		}
	}
	// The same guidance, as an error, when asked to call a model.
	r = h.hermes("model", "call", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "OPENROUTER_API_KEY") {
		t.Errorf("model call without a provider: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestHelpExplains(t *testing.T) {
	r := newHome(t).hermes("model", "call", "--help")
	for _, want := range []string{"--api-mode", "--base-url", "--stream", "--tools", "--json", "--retries", "raw_finish_reason"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("model call --help does not explain %q", want)
		}
	}
}

// chatScript runs an interactive hermes chat fed with script on stdin and
// returns everything it printed. The chat must end by itself (/exit or
// the end of stdin).
func (h *home) chatScript(srv *llmtest.Server, dir, script string, args ...string) string {
	h.t.Helper()
	cmd := chatCommand(h, srv, args...)
	if dir != "" {
		cmd.Dir = dir
	}
	cmd.Stdin = strings.NewReader(script)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		h.t.Fatalf("chat: %v\n%s", err, out.String())
	}
	return out.String()
}
