package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/tool"
)

// BeforeCall runs the pre_tool_call hooks of the tool called name, in
// order, each seeing the arguments as the one before left them. It returns
// the arguments to run the call with, or a reason to block it. A hook that
// fails blocks the call unless it is configured fail: open. It has the
// shape of tool.CallHooks.
func (r *Runner) BeforeCall(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, string) {
	inv := tool.InvocationFrom(ctx)
	for _, h := range r.Hooks() {
		if h.Event != PreToolCall || !h.Matches(name) {
			continue
		}
		o := r.runOne(ctx, h, Payload{Event: PreToolCall, SessionID: inv.SessionID, Source: inv.Source, Tool: name, Arguments: args})
		switch {
		case o.Skipped != "":
		case o.Err != nil && !h.FailOpen:
			return args, fmt.Sprintf("the pre_tool_call hook %s failed, and a hook that cannot answer blocks the call "+
				"(hermes's log says why; fail: open in config.yaml lets calls through)", filepath.Base(h.Command[0]))
		case o.Err != nil:
		case o.Answer.Block != "":
			return args, r.redact(o.Answer.Block)
		case len(o.Answer.Arguments) > 0:
			args = o.Answer.Arguments
		}
	}
	return args, ""
}

// AfterCall runs the post_tool_call hooks of the tool called name with
// the result the model reads; their answers are not used. It has the
// shape of tool.CallHooks.
func (r *Runner) AfterCall(ctx context.Context, name string, args json.RawMessage, result string) {
	if !r.Has(PostToolCall) {
		return
	}
	inv := tool.InvocationFrom(ctx)
	res := json.RawMessage(result)
	if !json.Valid(res) {
		res, _ = json.Marshal(result)
	}
	r.Run(ctx, Payload{Event: PostToolCall, SessionID: inv.SessionID, Source: inv.Source, Tool: name, Arguments: args, Result: res})
}

// Context runs the pre_llm_call hooks of a turn and returns the context
// they add, redacted, one hook's after another's.
func (r *Runner) Context(ctx context.Context, p Payload) []string {
	if !r.Has(PreLLMCall) {
		return nil
	}
	p.Event = PreLLMCall
	var out []string
	for _, o := range r.Run(ctx, p) {
		if o.Err == nil && o.Answer.Context != "" {
			out = append(out, r.redact(o.Answer.Context))
		}
	}
	return out
}

// Notify runs the hooks of an event whose answers are not used
// (on_session_start, on_session_end, on_turn_end, on_delivery, and
// post_tool_call).
func (r *Runner) Notify(ctx context.Context, p Payload) {
	if r.Has(p.Event) {
		r.Run(ctx, p)
	}
}
