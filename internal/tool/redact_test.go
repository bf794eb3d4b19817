package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
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
