package tool

import (
	"context"
	"encoding/json"
)

// CallHooks are the operator's commands around each call (config.yaml's
// hooks:). They run before a call is scheduled, so the arguments a hook
// rewrites are validated against the tool's schema and judged by the
// tool's own approval exactly as if the model had sent them.
type CallHooks interface {
	// BeforeCall returns the arguments to run the call with, or a
	// non-empty reason to block it.
	BeforeCall(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, string)
	// AfterCall hears the result the model will read.
	AfterCall(ctx context.Context, name string, args json.RawMessage, result string)
}

// hookBlocked answers a call a pre_tool_call hook refused.
func hookBlocked(name, reason string) Result {
	return Fail(CodeDenied, "%s was not run: a pre_tool_call hook configured by the operator blocked it: %s. "+
		"Do not retry the same call; change the approach or tell the user what was blocked and why.", name, reason)
}

// hookRewroteBadly answers a call whose rewritten arguments do not fit
// the tool.
func hookRewroteBadly(name, problem string) Result {
	return Fail(CodeInvalidArguments, "%s was not run: a pre_tool_call hook configured by the operator rewrote its arguments "+
		"into something the tool does not take (%s). Tell the user the hook needs fixing.", name, problem)
}
