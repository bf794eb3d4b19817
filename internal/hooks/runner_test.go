package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/hooks"
	"github.com/hermes-go/hermes/internal/safety/redact"
	"github.com/hermes-go/hermes/internal/tool"
)

// sh is a hook running script with sh.
func sh(e hooks.Event, script string) hooks.Hook {
	return hooks.Hook{Event: e, Command: []string{"sh", "-c", script}}
}

// allowed returns a Runner of hs, every one consented to.
func allowed(t *testing.T, hs ...hooks.Hook) *hooks.Runner {
	t.Helper()
	c := hooks.NewConsents(filepath.Join(t.TempDir(), hooks.ConsentFile), nil)
	for _, h := range hs {
		if err := c.Grant(h); err != nil {
			t.Fatal(err)
		}
	}
	return hooks.New(hooks.Options{Hooks: hs, Consents: c})
}

func call(ctx context.Context, r *hooks.Runner, name, args string) (string, string) {
	ctx = tool.WithInvocation(ctx, tool.Invocation{SessionID: "s1", Source: "cli"})
	out, block := r.BeforeCall(ctx, name, json.RawMessage(args))
	return string(out), block
}

func TestPreToolCallBlocks(t *testing.T) {
	r := allowed(t, sh(hooks.PreToolCall, `echo '{"block": "no deploys on Friday"}'`))
	if _, block := call(t.Context(), r, "terminal", `{"command":"deploy"}`); block != "no deploys on Friday" {
		t.Fatalf("block = %q", block)
	}
}

func TestPreToolCallRewritesInOrder(t *testing.T) {
	r := allowed(t,
		sh(hooks.PreToolCall, `echo '{"arguments": {"command": "echo one"}}'`),
		// The second hook sees what the first wrote.
		sh(hooks.PreToolCall, `grep -q '"echo one"' && echo '{"arguments": {"command": "echo two"}}'`))
	args, block := call(t.Context(), r, "terminal", `{"command":"echo hi"}`)
	if block != "" || args != `{"command": "echo two"}` {
		t.Fatalf("args = %s, block = %q", args, block)
	}
}

func TestPreLLMCallAddsContext(t *testing.T) {
	r := allowed(t, sh(hooks.PreLLMCall, `echo '{"context": "the deploy freeze is on"}'`), sh(hooks.PreLLMCall, `true`))
	got := r.Context(t.Context(), hooks.Payload{SessionID: "s1", Message: "deploy?"})
	if len(got) != 1 || got[0] != "the deploy freeze is on" {
		t.Fatalf("context = %q", got)
	}
}

// A failing pre_tool_call hook blocks the call unless it is fail: open;
// every way of failing counts.
func TestFailingPreToolCallHooks(t *testing.T) {
	failures := map[string]hooks.Hook{
		"timeout":   {Command: []string{"sleep", "30"}, Timeout: 100 * time.Millisecond},
		"crash":     {Command: []string{"sh", "-c", "echo oops >&2; exit 3"}},
		"missing":   {Command: []string{"/no/such/hook"}},
		"oversized": {Command: []string{"yes"}},
		"not json":  {Command: []string{"echo", "allow"}},
		"two":       {Command: []string{"echo", `{} {}`}},
		"bad field": {Command: []string{"echo", `{"allow": true}`}},
		"bad args":  {Command: []string{"echo", `{"arguments": "rm -rf ~"}`}},
	}
	for name, h := range failures {
		t.Run(name, func(t *testing.T) {
			h.Event = hooks.PreToolCall
			start := time.Now()
			args, block := call(t.Context(), allowed(t, h), "terminal", `{"command":"ls"}`)
			if block == "" || !strings.Contains(block, "failed") {
				t.Fatalf("a %s hook let the call through: args %s, block %q", name, args, block)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("a %s hook held the call for %s", name, d)
			}
			h.FailOpen = true
			args, block = call(t.Context(), allowed(t, h), "terminal", `{"command":"ls"}`)
			if block != "" || args != `{"command":"ls"}` {
				t.Fatalf("fail: open: args %s, block %q", args, block)
			}
		})
	}
}

func TestToolsMatcher(t *testing.T) {
	h := sh(hooks.PreToolCall, `echo '{"block": "no web"}'`)
	h.Tools = []string{"web_*", "browser_navigate"}
	r := allowed(t, h)
	for name, blocked := range map[string]bool{"web_search": true, "browser_navigate": true, "terminal": false, "browser_click": false} {
		if _, block := call(t.Context(), r, name, `{}`); (block != "") != blocked {
			t.Errorf("%s: block %q, want blocked %v", name, block, blocked)
		}
	}
}

// The payload a hook reads has every secret redacted: values hermes holds
// and secrets recognized by their format, in arguments and results.
func TestPayloadIsRedacted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "payload")
	hs := []hooks.Hook{sh(hooks.PreToolCall, `cat > `+out+`.pre`), sh(hooks.PostToolCall, `cat > `+out+`.post`)}
	c := hooks.NewConsents(filepath.Join(dir, hooks.ConsentFile), nil)
	for _, h := range hs {
		c.Grant(h)
	}
	secret := "s3cr3t-value-0123456789"
	rd := redact.New(map[string]string{"DEPLOY_TOKEN": secret})
	r := hooks.New(hooks.Options{Hooks: hs, Consents: c, Redact: rd.Redact})
	ctx := tool.WithInvocation(t.Context(), tool.Invocation{SessionID: "s1"})
	args := `{"command":"curl -H 'Authorization: Bearer ` + secret + `' https://x"}`
	r.BeforeCall(ctx, "terminal", json.RawMessage(args))
	r.AfterCall(ctx, "terminal", json.RawMessage(args), `{"status":"ok","data":"key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"}`)
	for _, f := range []string{out + ".pre", out + ".post"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) || strings.Contains(string(b), "abcdefghijklmnopqrstuvwxyz0123456789") {
			t.Errorf("%s holds a secret: %s", filepath.Base(f), b)
		}
		var p hooks.Payload
		if err := json.Unmarshal(b, &p); err != nil || p.Tool != "terminal" || p.SessionID != "s1" {
			t.Errorf("%s: payload %s (%v)", filepath.Base(f), b, err)
		}
	}
}
