package tool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// scriptedHooks rewrites or blocks calls as a test says and records what
// it saw after them.
type scriptedHooks struct {
	rewrite string
	block   string
	after   []string
}

func (h *scriptedHooks) BeforeCall(_ context.Context, _ string, args json.RawMessage) (json.RawMessage, string) {
	if h.rewrite != "" {
		return json.RawMessage(h.rewrite), h.block
	}
	return args, h.block
}

func (h *scriptedHooks) AfterCall(_ context.Context, name string, args json.RawMessage, result string) {
	h.after = append(h.after, name+" "+string(args)+" "+result)
}

var _ CallHooks = (*scriptedHooks)(nil)

func TestHooksBlockRewriteAndHear(t *testing.T) {
	var ran []string
	tl := &fakeTool{spec: Spec{Name: "terminal", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer"}},"required":["command"]}`)},
		call: func(_ context.Context, args json.RawMessage) (any, error) {
			ran = append(ran, string(args))
			return "done", nil
		}}
	cases := []struct {
		name, rewrite, block, code, ran string
	}{
		{name: "as sent", ran: `{"command":"echo hi"}`},
		// Rewritten arguments are validated and coerced like the model's.
		{name: "rewritten", rewrite: `{"command":"echo bye","timeout":"5"}`, ran: `{"command":"echo bye","timeout":5}`},
		{name: "blocked", block: "not today", code: string(CodeDenied)},
		{name: "rewritten badly", rewrite: `{"cmd":"rm -rf ~"}`, code: string(CodeInvalidArguments)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran = nil
			h := &scriptedHooks{rewrite: c.rewrite, block: c.block}
			d := &Dispatcher{Registry: newRegistry(t, tl), Hooks: h}
			out := d.Run(t.Context(), []llm.ToolCall{call("c1", "terminal", `{"command":"echo hi"}`)}, nil)[0]
			if string(out.Result.ErrorCode) != c.code {
				t.Fatalf("result %+v", out.Result)
			}
			if c.code != "" {
				if len(ran) != 0 || len(h.after) != 0 {
					t.Fatalf("a refused call ran: %q, after hooks %q", ran, h.after)
				}
				if c.block != "" && !contains(out.Content, c.block) {
					t.Fatalf("the model is not told the reason: %s", out.Content)
				}
				return
			}
			if len(ran) != 1 || ran[0] != c.ran {
				t.Fatalf("ran %q, want %s", ran, c.ran)
			}
			if len(h.after) != 1 || h.after[0] != "terminal "+c.ran+" "+out.Content {
				t.Fatalf("after hooks heard %q", h.after)
			}
		})
	}
}
