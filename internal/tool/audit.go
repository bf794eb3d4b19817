package tool

import (
	"context"
	"encoding/json"

	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/redact"
)

// Audited is one call as the audit log keeps it.
type Audited struct {
	// Invocation says whose call it was: session, user, tenant, source,
	// agent.
	Invocation Invocation
	// Name is the tool; Args its arguments, redacted and cut to
	// auditArgsMax bytes.
	Name string
	Args string
	// Outcome is how the call ended.
	Outcome Outcome
	// Approval is how the Policy decided its command (safe, person,
	// denied, ...), By who answered, Reason why it was denied; empty
	// for a call that ran no command.
	Approval, By, Reason string
}

// auditArgsMax bounds the arguments kept per call: enough to see what
// ran, not a copy of every file written.
const auditArgsMax = 2000

// audit hands the call to d.Audit, with its arguments redacted.
func (d *Dispatcher) audit(ctx context.Context, j *job, out Outcome, n *safety.Note) {
	if d.Audit == nil {
		return
	}
	args := string(j.args)
	if args == "" {
		args = j.call.Arguments
	}
	if d.Redact != nil {
		args = string(redact.JSON([]byte(args), d.Redact))
	}
	if len(args) > auditArgsMax {
		args = args[:auditArgsMax] + "…"
	}
	if !json.Valid([]byte(args)) {
		b, _ := json.Marshal(args)
		args = string(b)
	}
	a := Audited{Invocation: InvocationFrom(ctx), Name: j.name, Args: args, Outcome: out}
	if n != nil {
		a.Approval, a.By, a.Reason = n.Get()
	}
	d.Audit(context.WithoutCancel(ctx), a)
}
