package safety

import (
	"context"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// ActionRulePrefix starts the rule key of an action that always needs
// approval, such as a declared tool marked approval: always. The key of
// tool search_orders is "tool:search_orders"; putting it in
// command_allowlist allows the tool from then on.
const ActionRulePrefix = "tool:"

// CheckAction asks whether an action that its owner marked as always
// needing approval may go ahead: rule names it ("tool:search_orders"),
// description says what it is for the person asked, and detail is what
// exactly will happen (the request or command, secrets already masked).
// It follows steps 4 to 8 of the Policy, as a dangerous command would:
// earlier grants and command_allowlist entries naming the rule allow it,
// --yolo and approvals off allow it, a person is asked, and when nobody can
// be asked approvals.non_interactive decides. A deny pattern does not
// apply: it matches shell commands.
func (p *Policy) CheckAction(ctx context.Context, sessionID string, a Asker, rule, description, detail string) error {
	v := shell.Verdict{Level: shell.Dangerous, Rule: rule, Description: description}
	log := p.logger().With("session", sessionID, "verdict", v.Level, "rule", rule)
	deny := func(v shell.Verdict, reason string, err error) error {
		log.Warn("safety: action denied", "reason", reason)
		return &DeniedError{Command: detail, Verdict: v, Reason: reason, Err: err}
	}
	for _, entry := range p.Allowlist {
		if strings.EqualFold(strings.TrimSpace(entry), rule) {
			log.Info("safety: action allowed by command_allowlist")
			return nil
		}
	}
	return p.decide(ctx, Request{SessionID: sessionID, Command: detail}, a, []shell.Verdict{v}, log, deny)
}

// ApproveAction returns nil when the action may go ahead in the session,
// and a *DeniedError otherwise (see Policy.CheckAction).
func (a SessionApprover) ApproveAction(ctx context.Context, rule, description, detail string) error {
	return a.policy.CheckAction(ctx, a.sessionID, a.asker, rule, description, detail)
}
