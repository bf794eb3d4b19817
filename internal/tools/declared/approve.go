package declared

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/tool"
)

// actionApprover is what an approver offers for actions that always need
// a person's yes (safety.SessionApprover has it).
type actionApprover interface {
	ApproveAction(ctx context.Context, rule, description, detail string) error
}

// approve asks the invocation's approver for this call.
func (t *Tool) approve(ctx context.Context, detail string) error {
	a, ok := tool.InvocationFrom(ctx).Approver.(actionApprover)
	if !ok {
		return tool.Errorf(tool.CodeDenied, "%s is marked approval: always, and nobody can approve it here", t.spec.Name)
	}
	desc := fmt.Sprintf("declared tool %s is marked approval: always", t.spec.Name)
	if err := a.ApproveAction(ctx, "tool:"+t.spec.Name, desc, detail); err != nil {
		return tool.Errorf(tool.CodeDenied, "%s", err.Error())
	}
	return nil
}

// approveCommand has a command tool's command line judged and approved
// the way the terminal's commands are: by the invocation's approver, or
// the Fallback when the call brings none. Whoever can write or call a
// declared command tool can run anything its arguments let through (a
// "sh -c {{.cmd}}" tool is a terminal by another name), so a hardline
// command is refused, a dangerous one needs approval, and with nobody to
// approve nothing runs.
func (t *Tool) approveCommand(ctx context.Context, line string) error {
	ap := tool.InvocationFrom(ctx).Approver
	if ap == nil {
		ap = t.fallback
	}
	if ap == nil {
		return tool.Errorf(tool.CodeDenied, "no one can approve commands in this session, so the command tool %s may not run", t.spec.Name)
	}
	if err := ap.ApproveCommand(ctx, line); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: interrupted while awaiting approval: %w", t.spec.Name, ctx.Err())
		}
		return tool.Errorf(tool.CodeDenied, "%s", err.Error())
	}
	return nil
}

// commandLine is the command as a shell would run it, for the approver
// to judge and show: a cd into its directory, the variables the tool
// sets, argv with every argument shell-quoted (with shell: true, the line
// sh -c runs, its inserted values already quoted), and stdin as a
// here-string (code fed to a shell or an interpreter is judged as code).
// Secret values are masked before quoting, so they never reach a prompt
// or a log.
func (r *cmdRun) commandLine(m *masker) string {
	var b strings.Builder
	if r.dir != "" {
		b.WriteString("cd " + shellQuote(r.dir) + " && ")
	}
	for i, name := range r.envNames {
		b.WriteString(name + "=" + shellQuote(m.String(r.envVals[i])) + " ")
	}
	if r.line != "" {
		b.WriteString(m.String(r.line))
	} else {
		for i, a := range r.argv {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(shellQuote(m.String(a)))
		}
	}
	if r.hasStdin {
		b.WriteString(" <<< " + shellQuote(m.String(r.stdin)))
	}
	return b.String()
}
