package code

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// echo is a small real tool for the dispatcher test.
type echo struct{}

func (echo) Spec() tool.Spec {
	return tool.Spec{
		Name:        "echo",
		Description: "Echo text.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Toolset:     "test",
	}
}

func (echo) Call(_ context.Context, raw json.RawMessage) (any, error) {
	var a struct{ Text string }
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	return map[string]string{"echo": a.Text}, nil
}

func TestThroughDispatcher(t *testing.T) {
	reg := tool.NewRegistry()
	if err := reg.Register(echo{}); err != nil {
		t.Fatal(err)
	}
	d := &tool.Dispatcher{Registry: reg}
	c := New(Options{})
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	out := d.Run(context.Background(), []llm.ToolCall{{ID: "1", Name: Name, Arguments: `{"code": "print(tools.echo({text: 'hi'}).echo); try { tools.echo({}) } catch (e) { print(e.code) }"}`}}, nil)
	res := out[0].Result
	if res.Status != tool.StatusOK {
		t.Fatalf("result = %+v", res)
	}
	if r := res.Data.(Result); r.Output != "hi\ninvalid_arguments\n" || r.ToolCalls != 2 {
		t.Errorf("data = %+v", r)
	}
}
