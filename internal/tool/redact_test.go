package tool

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety/redact"
)

func TestDispatchRedactsResults(t *testing.T) {
	leaky := &fakeTool{spec: Spec{Name: "leaky", Parameters: json.RawMessage(`{"type":"object"}`)},
		call: func(ctx context.Context, args json.RawMessage) (any, error) {
			if strings.Contains(string(args), "fail") {
				return nil, errors.New("login with hunter2-secret failed")
			}
			return map[string]string{"out": "token=hunter2-secret"}, nil
		}}
	d := &Dispatcher{Registry: newRegistry(t, leaky), Redact: func(s string) string {
		return strings.ReplaceAll(s, "hunter2-secret", "[REDACTED]")
	}}
	outs := d.Run(context.Background(), []llm.ToolCall{call("a", "leaky", `{}`), call("b", "leaky", `{"x":"fail"}`)}, nil)
	for _, o := range outs {
		if strings.Contains(o.Content, "hunter2") || strings.Contains(o.Result.Message, "hunter2") || !strings.Contains(o.Content, "[REDACTED]") {
			t.Errorf("call %s leaked: content %s, message %q", o.Call.ID, o.Content, o.Result.Message)
		}
	}
}

// TestDispatchRedactionKeepsJSON checks that redaction runs on a
// result's text before it is encoded: a secret just before a line break
// does not take the escape with it, the envelope stays valid JSON, and a
// secret in a long output is masked before the output is cut to size,
// so no half of it is left for the model.
func TestDispatchRedactionKeepsJSON(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Ab3", 14)
	out := map[string]string{
		"text":   "OPENAI_API_KEY=" + key + "\nnext line",
		"struct": "",
		"long":   strings.Repeat("x", 300) + key + strings.Repeat("y", 10),
	}
	leaky := &fakeTool{spec: Spec{Name: "leaky", Parameters: json.RawMessage(`{"type":"object"}`), MaxOutput: 340},
		call: func(ctx context.Context, args json.RawMessage) (any, error) {
			var a struct{ Which string }
			json.Unmarshal(args, &a)
			if a.Which == "struct" {
				return map[string]any{"env": []map[string]string{{"name": "api_key", "api_key": key}}, "n": 3}, nil
			}
			return out[a.Which], nil
		}}
	// A greedy pattern, as a format rule may be: over encoded JSON,
	// \S+ would run through the escaped line break and the closing
	// quote.
	greedy := regexp.MustCompile(`PASSWORD=\S+`)
	d := &Dispatcher{Registry: newRegistry(t, leaky), Redact: func(s string) string {
		return redact.Secrets(greedy.ReplaceAllString(s, "PASSWORD=[REDACTED]"))
	}}
	out["text"] += "\nPASSWORD=hunter2\nlast line"
	outs := d.Run(context.Background(), []llm.ToolCall{call("a", "leaky", `{"which":"text"}`), call("b", "leaky", `{"which":"struct"}`),
		call("c", "leaky", `{"which":"long"}`)}, nil)
	for _, o := range outs {
		if !json.Valid([]byte(o.Content)) {
			t.Errorf("call %s: invalid JSON %s", o.Call.ID, o.Content)
		}
		if strings.Contains(o.Content, "Ab3Ab3") {
			t.Errorf("call %s leaked the key: %s", o.Call.ID, o.Content)
		}
	}
	if want := `"data":"OPENAI_API_KEY=[REDACTED:openai_key]\nnext line\nPASSWORD=[REDACTED]\nlast line"`; !strings.Contains(outs[0].Content, want) {
		t.Errorf("a line break after a secret: %s, want %s", outs[0].Content, want)
	}
	if !strings.Contains(outs[1].Content, `"n":3`) || !strings.Contains(outs[1].Content, `"api_key":"[REDACTED:`) {
		t.Errorf("structured data: %s", outs[1].Content)
	}
	if !outs[2].Truncated {
		t.Errorf("the long output was not cut: %s", outs[2].Content)
	}
}
