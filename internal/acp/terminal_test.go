package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/tools/terminal"
)

// secretValue is a secret hermes holds; tool results reach the model
// with it redacted.
const secretValue = "sk-test-0123456789abcdef"

// newTerminalRig serves turns of a real engine offering the terminal
// tool, guarded as hermes guards it with home as the home directory, to
// an in-process client that runs terminals when offered is set, and
// says so in initialize. It returns the rig and the session opened in
// dir.
func newTerminalRig(t *testing.T, srv *llmtest.Server, home, dir string, offered bool) (*rig, string) {
	t.Helper()
	term := terminal.New(terminal.Options{})
	t.Cleanup(func() { term.Close() })
	r := newEngineRigWith(t, srv, home, engine.Tools{Redact: func(s string) string {
		return strings.ReplaceAll(s, secretValue, "[REDACTED]")
	}}, term)
	caps := acpsdk.ClientCapabilities{}
	if offered {
		r.cli.terms = &terminals{}
		caps.Terminal = true
	}
	ctx := context.Background()
	if _, err := r.conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	s, err := r.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: dir, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return r, string(s.SessionId)
}

// run is a terminal call of the scripted model.
func run(id, command string) llm.ToolCall {
	return call(id, "terminal", map[string]any{"command": command})
}

// termResult is the terminal result the model got for call id.
func termResult(t *testing.T, srv *llmtest.Server, id string) terminal.Result {
	t.Helper()
	var res struct{ Data terminal.Result }
	text := toolResult(srv, id)
	if err := json.Unmarshal([]byte(text), &res); err != nil {
		t.Fatalf("result of %s is not a terminal result: %q", id, text)
	}
	return res.Data
}

// TestEditorTerminalKeepsState runs a session's commands with an editor
// that offers terminals and with one that does not. Offered, each
// command runs in a terminal of the editor, shown in its tool call, and
// the directory, exported variables and unset inherited ones carry over
// while plain variables do not, and hermes's keys and those of the
// editor's terminals stay hidden from the first command on; the state
// is kept private and removed with the connection; not offered, hermes's own shell runs them as before. Either
// way the command text reaches bash as written (quotes, $(), newlines, a
// leading -), the exit code and a killing signal reach the model, a long
// output is cut to the cap with a notice, and the output it gets is
// redacted.
func TestEditorTerminalKeepsState(t *testing.T) {
	quoting := "-x 2>/dev/null || echo dash\necho \"it's \\\"q\\\"\" '$(no)' $(echo yes) `echo tick`"
	for _, offered := range []bool{true, false} {
		t.Run(map[bool]string{true: "offered", false: "not offered"}[offered], func(t *testing.T) {
			var stateDir string
			t.Cleanup(func() {
				if _, err := os.Stat(stateDir); stateDir != "" && !os.IsNotExist(err) {
					t.Errorf("the state directory %s outlived the connection: %v", stateDir, err)
				}
			})
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			t.Setenv("HERMES_TEST_INHERITED", "yes")
			t.Setenv("HERMES_OPENAI_API_KEY", "hermes-own-key")
			srv := llmtest.New(t)
			srv.Enqueue(
				llmtest.Reply{ToolCalls: []llm.ToolCall{run("c1", "mkdir -p sub && cd sub && export FOO='a b' && PLAIN=1 && unset HERMES_TEST_INHERITED && echo ${HERMES_EDITOR_API_KEY-hidden}")}},
				llmtest.Reply{ToolCalls: []llm.ToolCall{run("c2", `pwd; echo "$FOO|${PLAIN-unset}|${HERMES_TEST_INHERITED-gone}|${HERMES_OPENAI_API_KEY-hidden}"; echo `+secretValue)}},
				llmtest.Reply{ToolCalls: []llm.ToolCall{run("c3", quoting)}},
				llmtest.Reply{ToolCalls: []llm.ToolCall{run("c4", "exit 3")}},
				llmtest.Reply{ToolCalls: []llm.ToolCall{run("c5", "kill -KILL $$")}},
				llmtest.Reply{ToolCalls: []llm.ToolCall{run("c6", `head -c 200000 /dev/zero | tr '\0' x; echo; echo end`)}},
				llmtest.Reply{Text: "Done."},
			)
			r, id := newTerminalRig(t, srv, t.TempDir(), dir, offered)
			if offered {
				r.cli.terms.env = []string{"HERMES_EDITOR_API_KEY=editor-own-key"}
			}
			if _, err := r.prompt(id, "go"); err != nil {
				t.Fatal(err)
			}
			if got := termResult(t, srv, "c1").Output; got != "hidden\n" {
				t.Errorf("the first command saw the editor's key: %q", got)
			}
			plain := "1"
			if offered {
				plain = "unset"
			}
			if got, want := termResult(t, srv, "c2").Output, filepath.Join(dir, "sub")+"\na b|"+plain+"|gone|hidden\n[REDACTED]\n"; got != want {
				t.Errorf("second command printed %q, want %q", got, want)
			}
			if got := termResult(t, srv, "c3").Output; got != "dash\nit's \"q\" $(no) yes tick\n" {
				t.Errorf("the command text was changed on its way: %q", got)
			}
			if c4, c5 := termResult(t, srv, "c4"), termResult(t, srv, "c5"); c4.ExitCode != 3 || c5.ExitCode != 137 {
				t.Errorf("exit codes %d and %d, want 3 and 137", c4.ExitCode, c5.ExitCode)
			}
			if c6 := termResult(t, srv, "c6"); !c6.Truncated || !strings.HasPrefix(c6.Output, "[output truncated") || !strings.HasSuffix(c6.Output, "x\nend\n") || len(c6.Output) > terminal.DefaultMaxOutputBytes+300 {
				t.Errorf("a long output: truncated %v, %d bytes, starting %.80q", c6.Truncated, len(c6.Output), c6.Output)
			}
			if !offered {
				return
			}
			if note := termResult(t, srv, "c1").Note; !strings.Contains(note, "editor's terminal") || termResult(t, srv, "c2").Note != "" {
				t.Errorf("notes: %q, %q; want what carries over told once", note, termResult(t, srv, "c2").Note)
			}
			ts := r.cli.terms
			if got := ts.summary(); got != "created 7, killed , released term-1,term-2,term-3,term-4,term-5,term-6,term-7" {
				t.Errorf("terminals: %s", got)
			}
			cr := ts.created[1]
			if cr.Command != "bash" || cr.OutputByteLimit == nil || *cr.OutputByteLimit != terminal.DefaultMaxOutputBytes || *cr.Cwd != dir {
				t.Errorf("terminal/create: %+v", cr)
			}
			stateDir = cr.Args[3]
			for name, perm := range map[string]os.FileMode{"": 0o700, "env": 0o600, "base": 0o600} {
				fi, err := os.Stat(filepath.Join(stateDir, name))
				if err != nil || fi.Mode().Perm() != perm {
					t.Errorf("state %q: %v, %v; want %v", name, fi.Mode(), err, perm)
				}
			}
			if fin := r.cli.finishedCall(t, "c2"); fin.Content[0].Terminal == nil || fin.Content[0].Terminal.TerminalId != "term-3" {
				t.Errorf("the finished call does not show its terminal: %+v", fin.Content)
			}
			live := false
			for _, u := range r.cli.raw {
				if tu := u.ToolCallUpdate; tu != nil && tu.ToolCallId == "c1" && tu.Status == nil && len(tu.Content) == 1 && tu.Content[0].Terminal != nil {
					live = true
				}
			}
			if !live {
				t.Errorf("the running call was not shown its terminal: %q", r.cli.seen())
			}
		})
	}
}

// TestEditorTerminalTimeoutAndCancel checks that a command past its
// timeout is killed and its terminal released, the model getting the
// timeout with the output so far, that cancelling the turn kills the
// running command too, and that closing the session removes its state.
func TestEditorTerminalTimeoutAndCancel(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("c1", "terminal", map[string]any{"command": "echo started; sleep 60", "timeout": 1})}},
		llmtest.Reply{Text: "It hung."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{run("c2", "sleep 60")}},
		llmtest.Reply{Text: "never"},
	)
	r, id := newTerminalRig(t, srv, t.TempDir(), dir, true)
	start := time.Now()
	if _, err := r.prompt(id, "hang"); err != nil {
		t.Fatal(err)
	}
	if res := toolResult(srv, "c1"); !strings.Contains(res, "timed out after 1s") || !strings.Contains(res, `"output":"started\n"`) || !strings.Contains(res, `"exit_code":124`) {
		t.Errorf("timeout result: %s", res)
	}
	if got := r.cli.terms.summary(); got != "created 2, killed term-2, released term-1,term-2" {
		t.Errorf("after the timeout: %s", got)
	}
	started, freed := make(chan string, 1), make(chan string, 1)
	r.cli.terms.mu.Lock()
	r.cli.terms.started, r.cli.terms.freedCh = started, freed
	r.cli.terms.mu.Unlock()
	go func() {
		<-started
		_ = r.conn.Cancel(context.Background(), acpsdk.CancelNotification{SessionId: acpsdk.SessionId(id)})
	}()
	resp, err := r.prompt(id, "hang again")
	if err != nil || resp.StopReason != acpsdk.StopReasonCancelled {
		t.Fatalf("cancelled prompt: %+v, %v", resp, err)
	}
	select {
	case <-freed:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled command's terminal was never released")
	}
	if got := r.cli.terms.summary(); got != "created 3, killed term-2,term-3, released term-1,term-2,term-3" {
		t.Errorf("after the cancel: %s", got)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the sleeps were waited for: %v", d)
	}
	stateDir := r.cli.terms.created[0].Args[3]
	if _, err := os.Stat(stateDir); err != nil {
		t.Fatalf("the session's state: %v", err)
	}
	if _, err := r.conn.CloseSession(context.Background(), acpsdk.CloseSessionRequest{SessionId: acpsdk.SessionId(id)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stateDir); !os.IsNotExist(err) {
		t.Errorf("the closed session's state is still there: %v", err)
	}
}

// An editor's terminal on a pseudo-terminal ends lines with CRLF; the
// model gets them as hermes's own shell gives them.
func TestEditorTerminalLineEnds(t *testing.T) {
	if got := lineEnds("a\r\nb\r\n\rc\n"); got != "a\nb\n\rc\n" {
		t.Errorf("lineEnds = %q", got)
	}
}

// TestEditorTerminalAsksFirst checks that the policy decides before the
// editor's terminal runs anything: a dangerous command the user rejects
// and a hardline one never reach it, and a variable an earlier command
// exported there is known to the policy, which refuses rm -rf $D for D
// the home directory even in yolo mode.
func TestEditorTerminalAsksFirst(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	canary := filepath.Join(home, "keep")
	if err := os.WriteFile(canary, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{run("c1", "rm -rf build")}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{run("c2", "sudo rm -rf /")}},
		llmtest.Reply{Text: "Refused."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{run("c3", "export D="+home)}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{run("c4", "rm -rf $D")}},
		llmtest.Reply{Text: "Refused again."},
	)
	r, id := newTerminalRig(t, srv, home, dir, true)
	r.cli.choose = func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome { return selected("deny") }
	if _, err := r.prompt(id, "delete"); err != nil {
		t.Fatal(err)
	}
	if len(r.cli.asked) != 1 || r.cli.terms.summary() != "created 0, killed , released " {
		t.Errorf("asked %d times, terminals %s; want one question and no terminal", len(r.cli.asked), r.cli.terms.summary())
	}
	if res := toolResult(srv, "c2"); !strings.Contains(res, "hardline") && !strings.Contains(res, "never") {
		t.Errorf("hardline command: %s", res)
	}
	if _, err := r.conn.SetSessionMode(context.Background(), acpsdk.SetSessionModeRequest{SessionId: acpsdk.SessionId(id), ModeId: ModeYolo}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.prompt(id, "delete home"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(canary); err != nil || r.cli.terms.summary() != "created 2, killed , released term-1,term-2" {
		t.Errorf("home: %v, terminals %s; want only the export run", err, r.cli.terms.summary())
	}
	if res := toolResult(srv, "c4"); !strings.Contains(res, "denied") && !strings.Contains(res, "never") {
		t.Errorf("rm -rf $D: %s", res)
	}
}
