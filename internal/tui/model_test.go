package tui

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/shell"
	"github.com/hermes-go/hermes/internal/tool"
)

// sgrOnly matches the only escape sequences the screen may carry: colours.
var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// assertInert fails when the frame holds anything a terminal would act
// on other than a colour: cursor moves, title changes, bells, erases.
func assertInert(t *testing.T, frame string) {
	t.Helper()
	rest := sgrOnly.ReplaceAllString(frame, "")
	for _, r := range rest {
		if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' || r == '\u2066') {
			t.Fatalf("the frame carries control character %U:\n%q", r, frame)
		}
	}
}

func key(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+d":
		return tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "ctrl+t":
		return tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl}
	case "ctrl+j":
		return tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

func typeText(m *model, s string) {
	for _, r := range s {
		m.Update(key(string(r)))
	}
}

func frame(m *model) string { return m.View().Content }

// Everything in the transcript comes from a model or a tool: escape
// sequences in a reply, its reasoning, a tool's name, arguments, result
// and failure, and a command's output are drawn as visible text.
func TestTranscriptIsInert(t *testing.T) {
	evil := "ok\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[1A\r\bhidden\u202eesrever\x9b31m\x1b[?1049l"
	m := newModel(Config{Banner: "banner " + evil})
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 40})
	m.Update(eventMsg{Kind: agent.EventReasoning, Text: "think " + evil})
	m.Update(eventMsg{Kind: agent.EventText, Text: "# Title " + evil + "\n\n```\n" + evil + "\n```\n"})
	call := llm.ToolCall{Name: "term\x1b[31minal", Arguments: `{"command":"` + evil + `"}`}
	m.Update(eventMsg{Kind: agent.EventToolStarted, Tool: &agent.ToolEvent{Call: call}})
	m.Update(eventMsg{Kind: agent.EventToolFinished, Tool: &agent.ToolEvent{Call: call, Content: evil,
		Result: tool.Result{Status: tool.StatusError, ErrorCode: "failed", Message: evil}}})
	m.Update(noteMsg(evil))
	assertInert(t, frame(m))
	m.Update(key("ctrl+o"))
	m.Update(key("ctrl+t"))
	f := frame(m)
	assertInert(t, f)
	if !strings.Contains(f, `\x1b]0;pwned`) {
		t.Errorf("the escape sequence is not shown as text:\n%s", f)
	}
}

// The modal shows a command whole, however long, with its control
// characters and bidi overrides escaped, so no part of it can hide.
func TestModalShowsTheWholeCommand(t *testing.T) {
	cmd := "echo " + strings.Repeat("harmless ", 80) + "; rm -rf /home/u\u202e\x1b[2K\r ls"
	m := newModel(Config{})
	m.Update(tea.WindowSizeMsg{Width: 50, Height: 80})
	reply := make(chan safety.Answer, 1)
	m.Update(approvalMsg{req: safety.Request{Command: cmd, Verdict: shell.Verdict{Description: "delete \x1b[8mfiles", Level: "dangerous"}}, reply: reply})
	f := frame(m)
	assertInert(t, f)
	var joined strings.Builder
	for _, l := range strings.Split(ansi.Strip(f), "\n") {
		if i := strings.Index(l, "┃ "); i >= 0 {
			joined.WriteString(l[i+len("┃ "):])
		}
	}
	if want := safety.Escape(cmd); !strings.Contains(joined.String(), want) {
		t.Errorf("the modal does not show the whole command %q:\n%s", want, f)
	}
	m.Update(key("x"))
	select {
	case a := <-reply:
		t.Fatalf("an unknown key answered %v", a)
	default:
	}
	m.Update(key("s"))
	if a := <-reply; a != safety.Session {
		t.Errorf("s answered %v", a)
	}
	if m.approval != nil {
		t.Error("the modal stayed open")
	}
}

// A reply can draw text that looks like the modal, but only a request
// from the approval check opens one: the keys then type into the input.
func TestFakedModalAnswersNothing(t *testing.T) {
	m := newModel(Config{})
	m.Update(eventMsg{Kind: agent.EventText, Text: "┃ ⚠ approval needed\n┃ Run it? [o]nce  [s]ession  [a]lways  [d]eny"})
	m.Update(key("o"))
	if m.in.String() != "o" || m.approval != nil {
		t.Errorf("input %q, modal %v", m.in.String(), m.approval)
	}
}

// Ctrl-C interrupts the running turn; a second one quits; one while idle
// quits; Ctrl-C with the modal open denies.
func TestCtrlC(t *testing.T) {
	started := make(chan context.Context, 1)
	m := newModel(Config{Run: func(ctx context.Context, _ string, _ agent.Sink, _ io.Writer) bool {
		started <- ctx
		<-ctx.Done()
		return false
	}})
	m.send = func(tea.Msg) {}
	typeText(m, "hi")
	_, run := m.Update(key("enter"))
	go run()
	ctx := <-started
	reply := make(chan safety.Answer, 1)
	m.Update(approvalMsg{req: safety.Request{Command: "rm -rf x"}, reply: reply})
	if _, cmd := m.Update(key("ctrl+c")); cmd != nil {
		t.Fatal("the first Ctrl-C quit")
	}
	if a := <-reply; a != safety.Deny {
		t.Errorf("Ctrl-C answered the modal %v", a)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the turn's context was not cancelled")
	}
	if _, cmd := m.Update(key("ctrl+c")); cmd == nil || cmd() != tea.Quit() {
		t.Error("the second Ctrl-C did not quit")
	}
	idle := newModel(Config{})
	if _, cmd := idle.Update(key("ctrl+c")); cmd == nil || cmd() != tea.Quit() {
		t.Error("Ctrl-C when idle did not quit")
	}
	typeText(idle, "x")
	if _, cmd := idle.Update(key("ctrl+d")); cmd != nil {
		t.Error("Ctrl-D with text typed quit")
	}
}

// Reasoning shows as one dimmed line until Ctrl-T opens it; a tool card
// is one line until Ctrl-O opens its arguments and result.
func TestCollapsedBlocks(t *testing.T) {
	m := newModel(Config{})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 40})
	m.Update(eventMsg{Kind: agent.EventReasoning, Text: "first thought\nsecond thought"})
	call := llm.ToolCall{Name: "terminal", Arguments: `{"command":"ls -la"}`}
	m.Update(eventMsg{Kind: agent.EventToolStarted, Tool: &agent.ToolEvent{Call: call}})
	m.Update(eventMsg{Kind: agent.EventToolFinished, Tool: &agent.ToolEvent{Call: call, Content: "total 0\nRESULT-LINE",
		Duration: 12 * time.Millisecond, Result: tool.Result{Status: tool.StatusOK}}})
	f := ansi.Strip(frame(m))
	if !strings.Contains(f, "∴ first thought second thought") || !strings.Contains(f, "⚙ terminal") || !strings.Contains(f, "✓ 12ms") {
		t.Errorf("collapsed:\n%s", f)
	}
	if strings.Contains(f, "RESULT-LINE") {
		t.Errorf("a collapsed card shows its result:\n%s", f)
	}
	m.Update(key("ctrl+o"))
	m.Update(key("ctrl+t"))
	f = ansi.Strip(frame(m))
	if !strings.Contains(f, "RESULT-LINE") || !strings.Contains(f, "  second thought") {
		t.Errorf("expanded:\n%s", f)
	}
}

// Ctrl-J adds a line; Enter sends all of it; Tab completes a command.
func TestInputEditing(t *testing.T) {
	var got []string
	m := newModel(Config{Commands: []string{"model", "memory", "resume"}, Run: func(_ context.Context, line string, _ agent.Sink, _ io.Writer) bool {
		got = append(got, line)
		return false
	}})
	typeText(m, "one")
	m.Update(key("ctrl+j"))
	typeText(m, "two")
	_, run := m.Update(key("enter"))
	run()
	if len(got) != 1 || got[0] != "one\ntwo" {
		t.Errorf("sent %q", got)
	}
	m.Update(doneMsg{})
	typeText(m, "/mo")
	if c := m.completions(); len(c) != 1 || c[0] != "model" {
		t.Errorf("completions of /mo = %q", c)
	}
	m.Update(key("tab"))
	if m.in.String() != "/model " {
		t.Errorf("Tab made %q", m.in.String())
	}
}

// A line sent while a turn runs goes when it ends; Ctrl-C drops it with
// the turn.
func TestTypeAhead(t *testing.T) {
	var got []string
	m := newModel(Config{Run: func(_ context.Context, line string, _ agent.Sink, _ io.Writer) bool {
		got = append(got, line)
		return false
	}})
	typeText(m, "first")
	_, run := m.Update(key("enter"))
	run()
	typeText(m, "second")
	if _, cmd := m.Update(key("enter")); cmd != nil || !strings.Contains(frame(m), "next: second") {
		t.Fatalf("a line sent during a turn ran at once or is not shown as next:\n%s", frame(m))
	}
	_, run = m.Update(doneMsg{})
	run()
	if len(got) != 2 || got[1] != "second" {
		t.Errorf("sent %q", got)
	}
	typeText(m, "third")
	m.Update(key("enter"))
	m.Update(key("ctrl+c"))
	if _, cmd := m.Update(doneMsg{}); cmd != nil {
		t.Error("a line queued before Ctrl-C was sent")
	}
}

// A large paste shows as a placeholder in the input and the transcript,
// and the whole text goes with the message, also when the message waits
// behind a running turn; a small paste is typed in as it is.
func TestLargePasteIsAnAttachment(t *testing.T) {
	var got []string
	m := newModel(Config{Run: func(_ context.Context, line string, _ agent.Sink, _ io.Writer) bool {
		got = append(got, line)
		return false
	}})
	log := strings.Repeat("2026-12-03 ERROR disk full on /var\n", 30)
	typeText(m, "why? ")
	m.Update(tea.PasteMsg{Content: log})
	if in := m.in.String(); in != "why? [pasted text 1: 30 lines, 1049 bytes]" {
		t.Fatalf("input = %q", in)
	}
	_, run := m.Update(key("enter"))
	run()
	if len(got) != 1 || !strings.HasPrefix(got[0], "why?") || strings.Count(got[0], "ERROR disk full") != 30 || strings.Contains(got[0], "[pasted text") {
		t.Fatalf("sent %q", got)
	}
	if f := frame(m); !strings.Contains(f, "[pasted text 1: 30 lines") || strings.Count(f, "ERROR disk full") > 0 {
		t.Errorf("the transcript shows the paste whole:\n%s", f)
	}
	// Behind a running turn, then sent: the text still goes.
	m.Update(tea.PasteMsg{Content: log})
	if _, cmd := m.Update(key("enter")); cmd != nil {
		t.Fatal("a message typed during a turn was sent at once")
	}
	_, run = m.Update(doneMsg{})
	run()
	m.Update(tea.PasteMsg{Content: "short"})
	if in := m.in.String(); in != "short" {
		t.Errorf("a short paste became %q", in)
	}
	if len(got) != 2 || strings.Count(got[1], "ERROR disk full") != 30 {
		t.Errorf("second message: %q", got[1:])
	}
}
