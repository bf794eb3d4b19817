package declared

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
)

// prompter answers every approval prompt with answer and records what it
// was asked.
type prompter struct {
	answer safety.Answer
	mu     sync.Mutex
	asked  []string
}

func (p *prompter) Prompt(_ context.Context, r safety.Request) (safety.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, r.Command)
	return p.answer, nil
}

func (p *prompter) prompts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.asked...)
}

// A self-written tool that hands the model a shell: every command it
// would run is judged like the terminal's, with the arguments filled in.
const shellTools = `tools:
  - name: run_sh
    description: Run a shell command.
    parameters: {type: object, properties: {cmd: {type: string}}, required: [cmd]}
    command: {argv: [sh, -c, "{{.cmd}}"]}
  - name: run_stdin
    description: Run a script read from stdin.
    parameters: {type: object, properties: {script: {type: string}}, required: [script]}
    command: {argv: [bash], stdin: "{{.script}}"}
  - name: run_line
    description: Run a command line, its value quoted.
    parameters: {type: object, properties: {v: {type: string}}, required: [v]}
    command: {argv: [echo, "{{.v}}"], shell: true}
`

func TestCommandToolsAreApprovedLikeTerminal(t *testing.T) {
	// Should a refusal ever fail, ~ is a scratch directory.
	t.Setenv("HOME", t.TempDir())
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.MkdirAll(filepath.Join(victim, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := newHome(t)
	h.load("sh.yaml", shellTools)
	policy := &safety.Policy{}
	yes := &prompter{answer: safety.Once}
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s1",
		Approver: policy.For("s1", safety.Asker{Prompter: yes})})

	// Hardline: refused without asking anyone, whatever the road.
	for _, c := range []struct{ name, args string }{
		{"run_sh", `{"cmd":"rm -rf ~"}`},
		{"run_sh", `{"cmd":"mkfs.ext4 /nonexistent/disk"}`},
		{"run_stdin", `{"script":"rm -rf $HOME"}`},
	} {
		o, _ := h.run(ctx, c.name, c.args)
		if o.Result.ErrorCode != tool.CodeDenied || !strings.Contains(o.Result.Message, "refused") {
			t.Errorf("%s(%s) = %s %s: %s; want refused as hardline", c.name, c.args, o.Result.Status, o.Result.ErrorCode, o.Result.Message)
		}
	}
	if p := yes.prompts(); len(p) != 0 {
		t.Errorf("hardline commands were put to a person: %q", p)
	}

	// Dangerous: asked, with the command as the shell would run it, and
	// run once approved.
	del := fmt.Sprintf(`{"cmd":"rm -rf %s"}`, filepath.Join(victim, "sub"))
	h.call(ctx, "run_sh", del)
	if p := yes.prompts(); len(p) != 1 || !strings.Contains(p[0], "sh -c 'rm -rf "+filepath.Join(victim, "sub")+"'") {
		t.Errorf("prompts = %q, want the sh -c command line once", p)
	}
	if _, err := os.Stat(filepath.Join(victim, "sub")); err == nil {
		t.Error("the approved command did not run")
	}

	// Denied when the person says no, and when nobody can be asked.
	no := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s2",
		Approver: policy.For("s2", safety.Asker{Prompter: &prompter{answer: safety.Deny}})})
	nobody := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s3",
		Approver: policy.For("s3", safety.Asker{})})
	for _, c := range []context.Context{no, nobody} {
		if o, _ := h.run(c, "run_sh", fmt.Sprintf(`{"cmd":"rm -rf %s"}`, victim)); o.Result.ErrorCode != tool.CodeDenied {
			t.Errorf("dangerous command not approved: %s %s", o.Result.Status, o.Result.Message)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("a denied command ran: %v", err)
	}

	// A value quoted into a shell line stays one argument: safe, not asked.
	got := h.call(nobody, "run_line", `{"v":"x; rm -rf ~"}`).(map[string]any)
	if got["stdout"] != "x; rm -rf ~" {
		t.Errorf("run_line = %v", got)
	}
}

// Without an approver in the call and without a fallback nothing runs,
// as for the terminal; the loader's fallback decides when it has one.
func TestCommandToolWithoutApprover(t *testing.T) {
	dir := t.TempDir()
	reg := tool.NewRegistry()
	if err := os.WriteFile(filepath.Join(dir, "t.yaml"), []byte("tools:\n  - name: hi\n    description: d\n    command: {argv: [echo, hi]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l := NewLoader(LoaderOptions{Dir: dir, Registry: reg})
	defer l.Close()
	if err := l.Load(); err != nil {
		t.Fatal(err)
	}
	hi, _ := reg.Get("hi")
	_, err := hi.Call(context.Background(), []byte(`{}`))
	if te, ok := tool.AsError(err); !ok || te.Code != tool.CodeDenied || !strings.Contains(te.Message, "no one can approve") {
		t.Errorf("no approver, no fallback: %v", err)
	}
	h := newHome(t) // its loader's fallback is a non-interactive policy
	h.load("t.yaml", "tools:\n  - name: hi\n    description: d\n    command: {argv: [echo, hi]}\n  - name: wipe\n    description: d\n    command: {argv: [mkfs.ext4, /nonexistent/disk]}\n")
	if got := h.call(context.Background(), "hi", `{}`).(map[string]any); got["stdout"] != "hi" {
		t.Errorf("safe command with the fallback: %v", got)
	}
	if o, _ := h.run(context.Background(), "wipe", `{}`); o.Result.ErrorCode != tool.CodeDenied {
		t.Errorf("hardline command with the fallback: %s %s", o.Result.Status, o.Result.Message)
	}
}

// The approver sees the directory, the variables set and stdin, with
// secret values masked; approval: always still asks on top.
func TestCommandLineShownToApprover(t *testing.T) {
	work := t.TempDir()
	h := newHome(t)
	h.env["DEPLOY_TOKEN"] = "tok-9f8e7d6c5b4a"
	h.load("d.yaml", fmt.Sprintf(`tools:
  - name: deploy
    description: Deploy a ref.
    parameters: {type: object, properties: {ref: {type: string}}, required: [ref]}
    approval: always
    command:
      argv: [cat, "--", "{{.ref}}"]
      dir: %q
      env: {TOKEN: "${DEPLOY_TOKEN}"}
      stdin: "ref {{.ref}}"
`, work))
	a := &lineApprover{}
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{Approver: a})
	h.run(ctx, "deploy", `{"ref":"main branch"}`)
	want := "cd " + work + " && TOKEN='${DEPLOY_TOKEN}' cat -- 'main branch' <<< 'ref main branch'"
	if len(a.commands) != 1 || a.commands[0] != want {
		t.Errorf("approver asked %q, want %q", a.commands, want)
	}
	if a.actions != 1 {
		t.Errorf("approval: always asked %d times, want 1", a.actions)
	}
}

// lineApprover approves everything and records the command lines.
type lineApprover struct {
	commands []string
	actions  int
}

func (a *lineApprover) ApproveCommand(_ context.Context, command string) error {
	a.commands = append(a.commands, command)
	return nil
}

func (a *lineApprover) ApproveAction(context.Context, string, string, string) error {
	a.actions++
	return nil
}
