package tool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
)

// dispatchCaller is the Caller a Dispatcher puts in the invocation of
// each call it runs.
type dispatchCaller struct{ d *Dispatcher }

// CallTool runs one call as a batch of one through the dispatcher, so
// approval, validation and timeouts apply as to the model's own calls.
func (c dispatchCaller) CallTool(ctx context.Context, name string, args json.RawMessage) Result {
	id := fmt.Sprintf("code_%d", c.d.calls.Add(1))
	return c.d.Run(ctx, []llm.ToolCall{{ID: id, Name: name, Arguments: string(args)}}, nil)[0].Result
}

// ToolNames lists the tools the dispatcher offers.
func (c dispatchCaller) ToolNames() []string {
	specs := c.d.Registry.Specs()
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

// Tools returns the tools the dispatcher offers. A tool that runs turns of
// its own (delegate_task) hands them these very tools rather than their
// namesakes in hermes's registry, which a role agent's own tools replace.
func (c dispatchCaller) Tools() []Tool {
	specs := c.d.Registry.Specs()
	out := make([]Tool, 0, len(specs))
	for _, s := range specs {
		if t, ok := c.d.Registry.Get(s.Name); ok {
			out = append(out, t)
		}
	}
	return out
}
