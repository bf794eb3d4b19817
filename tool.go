package hermes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hermes-go/hermes/internal/tool"
)

// Tool is a Go function the model can call, made by NewTool. hermes runs
// it as it runs its own tools: the arguments are checked against the
// schema before the function sees them, the call is bounded by a
// timeout, secrets in what it returns are redacted before the model
// reads it, and, made WithApproval, it runs only once approved.
type Tool struct {
	spec    tool.Spec
	call    func(ctx context.Context, args json.RawMessage) (any, error)
	approve string
}

// ToolOption changes a Tool made by NewTool.
type ToolOption func(*Tool)

// WithApproval makes every call of the tool wait for an approval, asked
// with why (what the call will do, as a person deciding should read it)
// and the call's arguments; see ApproveFunc. A Session answer approves
// the tool's further calls in the session.
func WithApproval(why string) ToolOption {
	return func(t *Tool) { t.approve = why }
}

// WithTimeout bounds one call; the default is 30 seconds.
func WithTimeout(d time.Duration) ToolOption {
	return func(t *Tool) { t.spec.Timeout = d }
}

// ReadOnly says the tool only reads, so several of its calls may run at
// once and a failed one may be tried again.
func ReadOnly() ToolOption {
	return func(t *Tool) { t.spec.ParallelSafe, t.spec.Idempotent = true, true }
}

// NewTool makes a tool named name (snake_case, what the model calls) of
// fn. Its parameters are In's JSON Schema, derived from the struct: its
// fields' json names, a field without omitempty required, and a
// `jsonschema:"..."` tag as the field's description. description tells
// the model when to use the tool. What fn returns is sent to the model
// as JSON; an error is reported to the model as the call's failure, and
// the turn goes on.
func NewTool[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error), opts ...ToolOption) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("hermes: tool %q has no function", name)
	}
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("hermes: tool %q: the parameters' schema: %w", name, err)
	}
	params, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("hermes: tool %q: the parameters' schema: %w", name, err)
	}
	t := &Tool{spec: tool.Spec{Name: name, Description: description, Parameters: params, Toolset: "program"}}
	t.call = func(ctx context.Context, raw json.RawMessage) (any, error) {
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "%v", err)
		}
		return fn(ctx, in)
	}
	for _, o := range opts {
		o(t)
	}
	// The checks of every tool: its name, its schema, its limits.
	if err := tool.NewRegistry().Register(programTool{t}); err != nil {
		return nil, fmt.Errorf("hermes: %w", err)
	}
	return t, nil
}

// Name is the name the model calls the tool by.
func (t *Tool) Name() string { return t.spec.Name }

// programTool is a Tool as hermes's dispatcher runs it.
type programTool struct{ t *Tool }

func (p programTool) Spec() tool.Spec { return p.t.spec }

// Call runs the tool after the approval WithApproval asks for.
func (p programTool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	t := p.t
	if t.approve != "" {
		if err := t.approved(ctx, args); err != nil {
			return nil, err
		}
	}
	return t.call(ctx, args)
}

// actionApprover is the approver of a turn that can decide an action
// that always needs approval (safety.SessionApprover); the rule of a
// tool's calls is "tool:NAME", as for a declared tool marked approval:
// always.
type actionApprover interface {
	ApproveAction(ctx context.Context, rule, description, detail string) error
}

// approved asks the turn's approver about this call; with no approver
// able to, the call is denied.
func (t *Tool) approved(ctx context.Context, args json.RawMessage) error {
	ap, ok := tool.InvocationFrom(ctx).Approver.(actionApprover)
	if !ok {
		return tool.Errorf(tool.CodeDenied, "%s asks for an approval and nobody can give one here; it did not run", t.spec.Name)
	}
	if err := ap.ApproveAction(ctx, "tool:"+t.spec.Name, t.approve, string(args)); err != nil {
		var te *tool.Error
		if errors.As(err, &te) {
			return te
		}
		return tool.Errorf(tool.CodeDenied, "%v", err)
	}
	return nil
}
