package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// TestWritesOutsideCwdAsk runs write_file and patch calls whose paths
// leave the session's directory each way a path can — "../", an absolute
// path, a link inside the directory that leads out — and checks that the
// editor is asked (allow once or reject, pointing at the call and the
// file), that an allowed write lands, that a rejected one does not and
// the model is told it was refused, and that writes inside are not asked
// about.
func TestWritesOutsideCwdAsk(t *testing.T) {
	base := t.TempDir()
	cwd, outside := filepath.Join(base, "project"), filepath.Join(base, "elsewhere")
	for _, d := range []string{cwd, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, tool, path, lands string
		asks                    bool
	}{
		{"inside", "write_file", "sub/in.txt", filepath.Join(cwd, "sub", "in.txt"), false},
		{"dotdot", "write_file", "../elsewhere/dotdot.txt", filepath.Join(outside, "dotdot.txt"), true},
		{"absolute", "write_file", filepath.Join(outside, "abs.txt"), filepath.Join(outside, "abs.txt"), true},
		{"symlink", "write_file", "link.txt", filepath.Join(outside, "linked.txt"), true},
		{"patch", "patch", "../elsewhere/patched.txt", filepath.Join(outside, "patched.txt"), true},
	}
	for _, c := range cases {
		for _, answer := range []string{"once", "deny"} {
			t.Run(c.name+"/"+answer, func(t *testing.T) {
				args := map[string]any{"path": c.path, "content": "new\n"}
				if c.tool == "patch" {
					if err := os.WriteFile(c.lands, []byte("old\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					args = map[string]any{"path": c.path, "old_string": "old", "new_string": "new"}
				} else {
					os.Remove(c.lands)
				}
				link := filepath.Join(cwd, "link.txt")
				os.Remove(link)
				if err := os.WriteFile(filepath.Join(outside, "linked.txt"), []byte("linked\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(outside, "linked.txt"), link); err != nil {
					t.Fatal(err)
				}
				srv := llmtest.New(t)
				srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{call("c1", c.tool, args)}}, llmtest.Reply{Text: "Done."})
				r := newEngineRig(t, srv, t.TempDir())
				r.cli.choose = func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome { return selected(answer) }
				id := r.newSession(t, cwd)
				if _, err := r.prompt(id, "write it"); err != nil {
					t.Fatal(err)
				}
				data, _ := os.ReadFile(c.lands)
				written := string(data) == "new\n"
				if !c.asks {
					if len(r.cli.asked) != 0 || !written {
						t.Errorf("asked %d times, written %v; want a write inside cwd without asking", len(r.cli.asked), written)
					}
					return
				}
				if len(r.cli.asked) != 1 {
					t.Fatalf("asked %d times; want once", len(r.cli.asked))
				}
				req := r.cli.asked[0]
				var opts []string
				for _, o := range req.Options {
					opts = append(opts, string(o.OptionId))
				}
				if strings.Join(opts, ",") != "once,deny" || req.ToolCall.ToolCallId != "c1" || req.ToolCall.Kind == nil || *req.ToolCall.Kind != acpsdk.ToolKindEdit ||
					locs(req.ToolCall.Locations) != c.lands || !strings.Contains(*req.ToolCall.Title, c.lands) {
					t.Errorf("request = options %v, call %s, locations %q, title %q; want once/deny about call c1 writing %s",
						opts, req.ToolCall.ToolCallId, locs(req.ToolCall.Locations), *req.ToolCall.Title, c.lands)
				}
				result := toolResult(srv, "c1")
				switch answer {
				case "once":
					if !written {
						t.Errorf("allowed once, but %s was not written; the model was told %s", c.lands, result)
					}
				case "deny":
					if written {
						t.Errorf("rejected, but %s was written", c.lands)
					}
					if !strings.Contains(result, "denied") || !strings.Contains(result, "outside the working directory "+cwd) {
						t.Errorf("the model was told %q; want the refusal and where to write", result)
					}
				}
			})
		}
	}
}

// TestGuardedWritesRefusedWithoutAsking checks that the paths hermes's
// write guard forbids — its own config, the user's ssh keys — stay
// refused in an editor session, and the editor is not asked about them.
func TestGuardedWritesRefusedWithoutAsking(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{filepath.Join(home, ".hermes", "config.yaml"), filepath.Join(home, ".ssh", "authorized_keys")} {
		srv := llmtest.New(t)
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{call("c1", "write_file", map[string]any{"path": p, "content": "x"})}}, llmtest.Reply{Text: "Done."})
		r := newEngineRig(t, srv, home)
		r.cli.choose = func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome { return selected("once") }
		id := r.newSession(t, t.TempDir())
		if _, err := r.prompt(id, "write it"); err != nil {
			t.Fatal(err)
		}
		if len(r.cli.asked) != 0 {
			t.Errorf("%s: the editor was asked", p)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
		if res := toolResult(srv, "c1"); !strings.Contains(res, "is not allowed") {
			t.Errorf("%s: the model was told %q", p, res)
		}
	}
}
