package code

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
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

// dispatcherCaller is how an embedder binds programs to the dispatcher:
// each call becomes a one-call batch with an id of its own.
type dispatcherCaller struct {
	d *tool.Dispatcher
	n atomic.Int64
}

func (c *dispatcherCaller) CallTool(ctx context.Context, name string, args json.RawMessage) tool.Result {
	id := fmt.Sprintf("code_%d", c.n.Add(1))
	out := c.d.Run(ctx, []llm.ToolCall{{ID: id, Name: name, Arguments: string(args)}}, nil)
	return out[0].Result
}

func TestThroughDispatcher(t *testing.T) {
	reg := tool.NewRegistry()
	if err := reg.Register(echo{}); err != nil {
		t.Fatal(err)
	}
	d := &tool.Dispatcher{Registry: reg}
	c := New(Options{Caller: &dispatcherCaller{d: d}, Tools: func() []string { return []string{"echo"} }})
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
