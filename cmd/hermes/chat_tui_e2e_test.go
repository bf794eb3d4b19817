package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
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
	var list []struct {
		EndReason string `json:"end_reason"`
	}
	h.hermes("sessions", "list", "--json").decode(t, &list)
	if len(list) != 1 || list[0].EndReason != "exit" {
		t.Errorf("sessions after quitting: %+v, want one ended by exit", list)
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

// send types a line into the interface and presses Enter.
func (p *tmuxPane) send(line string) {
	p.t.Helper()
	p.keys("-l", line)
	p.keys("Enter")
}

// TestTUICtrlCMidTool: Ctrl-C while a command runs stops it, the card
// says it was interrupted, and the chat takes the next message.
func TestTUICtrlCMidTool(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("sleep 30")}},
		llmtest.Reply{Text: "Still here."},
	)
	p := newTmuxPane(t, h.tuiCommand(srv, t.TempDir()))
	p.waitFor("new session")
	p.send("wait a while")
	p.waitFor("⚙ terminal  command: sleep 30   …")
	p.keys("C-c")
	screen := p.waitFor("✗ interrupted")
	if strings.Contains(screen, "SETUP-EXIT=") {
		t.Fatalf("the first Ctrl-C quit:\n%s", screen)
	}
	p.waitFor("$0.0000") // the status bar's cost, shown once the turn ended
	p.send("are you there?")
	p.waitFor("Still here.")
	p.keys("C-c")
	p.waitFor("SETUP-EXIT=0")
}

// TestTUIModelAndResume: /model switches the next request's model, and
// /resume ID continues an earlier session with its history.
func TestTUIModelAndResume(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.SetModels("test-model", "big-model")
	srv.Enqueue(llmtest.Reply{Text: "Noted the code word."})
	first, r := h.chatIn(srv, t.TempDir(), "the code word is PELICAN")
	if r.code != 0 {
		t.Fatalf("chat -q: %d %s", r.code, r.stderr)
	}
	srv.Enqueue(llmtest.Reply{Text: "It was PELICAN."})
	p := newTmuxPane(t, h.tuiCommand(srv, t.TempDir()))
	p.waitFor("new session")
	p.send("/model big-model")
	p.waitFor("model: big-model for this chat's next turns")
	p.send("/resume " + first.SessionID)
	p.waitFor("continuing session " + first.SessionID)
	p.send("what was the code word?")
	p.waitFor("It was PELICAN.")
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Model != "big-model" {
		t.Errorf("the request after /model went to %q", last.Model)
	}
	var texts []string
	for _, m := range last.Messages {
		texts = append(texts, m.Text())
	}
	if !strings.Contains(strings.Join(texts, "\n"), "PELICAN") {
		t.Errorf("the resumed session's history was not sent: %q", texts)
	}
	p.waitFor("big-model · ")
}

// TestTUIResizeReflows: a long paragraph is wrapped to the pane's width
// and wrapped again when the window narrows.
func TestTUIResizeReflows(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	words := strings.TrimSpace(strings.Repeat("lorem ipsum dolor sit amet ", 20)) + " THE-END"
	srv.Enqueue(llmtest.Reply{Text: words})
	p := newTmuxPane(t, h.tuiCommand(srv, t.TempDir()))
	p.waitFor("new session")
	p.send("talk")
	p.waitFor("THE-END")
	if _, err := execTmux(p, "resize-window", "-t", "setup", "-x", "50", "-y", "40"); err != nil {
		t.Fatalf("tmux resize-window: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		screen, _ := execTmux(p, "capture-pane", "-p", "-t", "setup")
		if reflowed(screen, 50) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reply did not reflow to 50 columns:\n%s", screen)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reflowed reports whether screen shows the reply's end and its lines of
// lorem all fit width with at least several of them.
func reflowed(screen string, width int) bool {
	n := 0
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "lorem") {
			if len([]rune(strings.TrimRight(l, " "))) > width {
				return false
			}
			n++
		}
	}
	return n >= 8 && strings.Contains(screen, "THE-END")
}

// TestTUIEscapesInReplyAndTool: a reply and a tool result carrying
// escape sequences (clear the screen, set the title, move the cursor)
// are shown as text; the screen keeps the banner and the card.
func TestTUIEscapesInReplyAndTool(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	evil := `\033]0;PWNED\007\033[2J\033[H\033[31mFAKE`
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("printf '" + evil + "'")}},
		llmtest.Reply{Text: "done \x1b]0;PWNED\x07\x1b[2J\x1b[HREPLY-END"},
	)
	p := newTmuxPane(t, h.tuiCommand(srv, t.TempDir()))
	p.waitFor("new session")
	p.send("print it")
	p.waitFor("REPLY-END")
	p.keys("C-o")
	screen := p.waitFor(`result: {"status":"ok","data":{"output":"\u001b]0;PWNED\u0007`)
	for _, want := range []string{"hermes dev", "⚙ terminal  command: printf", "done ␛]0;PWNED␇␛[2J␛[HREPLY-END"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if title, _ := execTmux(p, "display-message", "-p", "-t", "setup", "#{pane_title}"); strings.Contains(title, "PWNED") {
		t.Errorf("the reply set the terminal's title to %q", title)
	}
}

// TestTUIPlainAndDumbKeepLineMode: --plain, and a terminal that cannot
// draw the interface (TERM=dumb), get the line-by-line chat.
func TestTUIPlainAndDumbKeepLineMode(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	for _, c := range []string{h.tuiCommand(srv, t.TempDir(), "--plain"),
		strings.Replace(h.tuiCommand(srv, t.TempDir()), "TERM=xterm-256color", "TERM=dumb", 1)} {
		p := newTmuxPane(t, c)
		screen := p.waitFor("/new starts a new session.")
		if strings.Contains(screen, "Alt-Enter") {
			t.Errorf("%s opened the full-screen interface:\n%s", c, screen)
		}
		p.keys("C-d")
		p.waitFor("SETUP-EXIT=0")
	}
}
