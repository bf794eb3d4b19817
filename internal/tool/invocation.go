package tool

import (
	"context"
	"encoding/json"
)

// Invocation is what a tool may know about the call it is serving: whose
// session it runs in and who approves risky actions. The agent puts it in
// the call's context; tools read it with InvocationFrom.
type Invocation struct {
	// SessionID is the session the call belongs to.
	SessionID string
	// CallID is the model's id for this call.
	CallID string
	// Source is where the session comes from: cli, cron, api, a chat
	// platform. Tools that must not run somewhere (the cron tool inside a
	// scheduled job) check it.
	Source string
	// Agent is the role agent the turn runs as, "" for hermes itself.
	// Tools that act later in someone's name (the cronjob tool) act in
	// the agent's, so a turn cannot get past its agent's limits.
	Agent string
	// User is the user the turn runs for (config's users:), and Tenant
	// theirs; both "" for the local owner. Tools that read or keep
	// things per person (session_search) keep to the user's.
	User, Tenant string
	// Workdir is the directory the session works in; tools that keep
	// their own working directory (terminal) start there.
	Workdir string
	// Approver decides whether a risky command may run. Nil means no one
	// can be asked: tools must treat dangerous actions as denied.
	Approver Approver
	// Caller runs further tool calls the way the dispatcher running this
	// call does: the same tools offered, the same approver, validation,
	// timeouts and logging (execute_code's programs call tools through
	// it). The Dispatcher sets it; nil means no tools can be called.
	Caller Caller
	// BeforeWrite, when set, is called with a local file's path before a
	// tool changes it, to keep what it held (checkpoints, for
	// /rollback); an error stops the write.
	BeforeWrite func(path string) error
}

// Caller runs tool calls on behalf of a tool.
type Caller interface {
	// CallTool runs one call and returns its result.
	CallTool(ctx context.Context, name string, args json.RawMessage) Result
	// ToolNames lists the tools that may be called, sorted.
	ToolNames() []string
}

// Approver is supplied per turn by the front-end (terminal prompt, chat
// buttons, cron policy). ApproveCommand returns nil when the shell command
// may run, or an error saying why not, which the tool reports to the model
// with CodeDenied.
type Approver interface {
	ApproveCommand(ctx context.Context, command string) error
}

type invocationKey struct{}

// WithInvocation returns ctx carrying inv.
func WithInvocation(ctx context.Context, inv Invocation) context.Context {
	return context.WithValue(ctx, invocationKey{}, inv)
}

// InvocationFrom returns the invocation in ctx, or a zero one.
func InvocationFrom(ctx context.Context) Invocation {
	inv, _ := ctx.Value(invocationKey{}).(Invocation)
	return inv
}
