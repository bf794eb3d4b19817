package safety

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

func TestCheckAction(t *testing.T) {
	ctx := context.Background()
	const rule, desc, detail = "tool:refund", "declared tool refund needs approval", `refund {"order":"A1"}`

	// Nobody to ask: denied, naming why.
	p := &Policy{}
	denied(t, p.CheckAction(ctx, "s1", Asker{}, rule, desc, detail), shell.Dangerous, "nobody can be asked")

	// A person answers: once allows this call only, session the session.
	pr := answering(Session)
	p = &Policy{}
	if err := p.CheckAction(ctx, "s1", Asker{Prompter: pr}, rule, desc, detail); err != nil {
		t.Fatalf("session answer: %v", err)
	}
	if err := p.For("s1", Asker{Prompter: pr}).ApproveAction(ctx, rule, desc, detail); err != nil || pr.count() != 1 {
		t.Errorf("second call in the session: err %v, asked %d times, want nil and 1", err, pr.count())
	}
	if err := p.CheckAction(ctx, "s2", Asker{Prompter: pr}, rule, desc, detail); err != nil || pr.count() != 2 {
		t.Errorf("another session: err %v, asked %d times, want asked again", err, pr.count())
	}
	// A Deny answer refuses.
	p = &Policy{}
	denied(t, p.CheckAction(ctx, "s1", Asker{Prompter: answering(Deny)}, rule, desc, detail), shell.Dangerous, "")

	// command_allowlist naming the rule allows it without asking; --yolo too.
	for _, tc := range []struct {
		p   *Policy
		ask Asker
	}{
		{&Policy{Allowlist: []string{"TOOL:refund"}}, Asker{Prompter: answering(Deny)}},
		{&Policy{}, Asker{Yolo: true, Prompter: answering(Deny)}},
		{&Policy{Mode: ModeOff}, Asker{Prompter: answering(Deny)}},
	} {
		if err := tc.p.CheckAction(ctx, "s1", tc.ask, rule, desc, detail); err != nil {
			t.Errorf("policy %+v, %+v: %v", tc.p, tc.ask, err)
		}
	}
	// A deny pattern is for shell commands: it does not match an action.
	p = &Policy{Deny: []string{"refund*"}}
	if err := p.CheckAction(ctx, "s1", Asker{Yolo: true}, rule, desc, detail); err != nil {
		t.Errorf("deny pattern applied to an action: %v", err)
	}
}
