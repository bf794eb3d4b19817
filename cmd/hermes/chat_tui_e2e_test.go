package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// tuiCommand is the shell command line that runs `hermes chat` in h
// against srv in dir, in a clean environment on a real terminal.
func (h *home) tuiCommand(srv *llmtest.Server, dir string, args ...string) string {
	quoted := []string{"cd", shellQuote(dir), "&&", "env", "-i"}
	for _, e := range h.env {
		quoted = append(quoted, shellQuote(e))
	}
	quoted = append(quoted, "TERM=xterm-256color", shellQuote(hermesBin), "chat", "--api-mode", "chat_completions",
		"--base-url", shellQuote(srv.URL()+"/v1"), "--model", "test-model", "--api-key", "sk-test-123456")
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	return strings.Join(quoted, " ")
}

// visible is the pane as shown now, without scrollback and with its
// colours, for tests of styling.
func (p *tmuxPane) styled() string {
	p.t.Helper()
	out, err := execTmux(p, "capture-pane", "-p", "-e", "-t", "setup")
	if err != nil {
		p.t.Fatalf("tmux capture-pane: %v", err)
	}
	return out
}

// TestTUIStreamsMarkdownAndQuits: the reply is drawn as rendered
// markdown (the heading styled, the fence gone, the code kept), the
// status bar names the model, and Ctrl-D on an empty input quits and
// ends the session.
func TestTUIStreamsMarkdownAndQuits(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "# Plan\n\nFirst **this**:\n\n```go\nfmt.Println(\"hi\")\n```\n", ChunkSize: 3})
	p := newTmuxPane(t, h.tuiCommand(srv, t.TempDir()))
	p.waitFor("test-model · new session")
	p.keys("-l", "make a plan")
	p.keys("Enter")
	p.waitFor(`fmt.Println("hi")`)
	screen := p.waitFor("$0.")
	if strings.Contains(screen, "```") || strings.Contains(screen, "**") {
		t.Errorf("the reply was shown as raw markdown:\n%s", screen)
	}
	st := p.styled()
	if !regexp.MustCompile(`\x1b\[[0-9;]*m# Plan`).MatchString(st) || !regexp.MustCompile(`\x1b\[[0-9;]*m"hi"`).MatchString(st) {
		t.Errorf("the heading or the code is not styled:\n%q", st)
	}
	p.keys("C-d")
	screen = p.waitFor("SETUP-EXIT=")
	if !strings.Contains(screen, "SETUP-EXIT=0") {
		t.Fatalf("chat did not quit cleanly:\n%s", screen)
	}
}

// TestTUIApprovalModal: a dangerous command is shown whole in the modal,
// its escape sequences visible; d denies it (it does not run), and o runs
// the next one.
func TestTUIApprovalModal(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	target := filepath.Join(work, "precious")
	other := filepath.Join(work, "scratch")
	for _, d := range []string{target, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	padding := "echo " + strings.Repeat("nothing to see here ", 40) + "; "
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall(padding + "rm -rf " + target + "\x1b[2K\r\x1b[1A echo ls -la /tmp")}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + other)}},
		llmtest.Reply{Text: "One denied, one ran."},
	)
	p := newTmuxPane(t, h.tuiCommand(srv, work))
	p.waitFor("new session")
	p.keys("-l", "clean up")
	p.keys("Enter")
	screen := p.waitFor("Run it? [o]nce")
	for _, want := range []string{`\x1b[2K\r\x1b[1A echo ls -la /tmp`, "rm -rf " + target} {
		if !strings.Contains(screen, want) {
			t.Errorf("the modal does not show %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "characters cut") {
		t.Errorf("the modal cut the command:\n%s", screen)
	}
	p.keys("d")
	p.waitFor("rm -rf " + other)
	p.waitFor("Run it? [o]nce")
	p.keys("o")
	p.waitFor("One denied, one ran.")
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("the approved command did not run")
	}
}
