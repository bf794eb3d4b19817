package safety

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// judge is a scripted Judge that counts its calls.
type judge struct {
	calls atomic.Int32
	fn    func(ctx context.Context, r Request) (Judgement, error)
}

func (j *judge) Judge(ctx context.Context, r Request) (Judgement, error) {
	j.calls.Add(1)
	return j.fn(ctx, r)
}

// judging returns a judge that always gives j and err.
func judging(j Judgement, err error) *judge {
	return &judge{fn: func(context.Context, Request) (Judgement, error) { return j, err }}
}

func TestSmartApproval(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		judge     *judge
		prompter  *prompter
		wantErr   string // "" means allowed
		wantAsked int
	}{
		{"approve", judging(JudgeApprove, nil), answering(Deny), "", 0},
		{"deny", judging(JudgeDeny, nil), answering(Once), "safety reviewer", 0},
		{"escalate to once", judging(JudgeEscalate, nil), answering(Once), "", 1},
		{"escalate to deny", judging(JudgeEscalate, nil), answering(Deny), "the user denied", 1},
		{"unknown judgement escalates", judging("MAYBE", nil), answering(Once), "", 1},
		{"judge error escalates", judging(JudgeApprove, errors.New("model down")), answering(Once), "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Policy{Mode: ModeSmart, Judge: tc.judge}
			err := p.Check(ctx, "s", Asker{Prompter: tc.prompter}, dangerousCmd)
			if tc.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				denied(t, err, shell.Dangerous, tc.wantErr)
			}
			if tc.judge.calls.Load() != 1 || tc.prompter.count() != tc.wantAsked {
				t.Errorf("judge called %d times, user asked %d times; want 1 and %d", tc.judge.calls.Load(), tc.prompter.count(), tc.wantAsked)
			}
		})
	}
}

// TestSmartApprovalDoesNotAllowlist mirrors Hermes Agent's
// test_smart_approval_does_not_allowlist_the_pattern_for_session: the
// judge's yes covers one command, so the next one is judged again.
func TestSmartApprovalDoesNotAllowlist(t *testing.T) {
	j := judging(JudgeApprove, nil)
	p := &Policy{Mode: ModeSmart, Judge: j}
	for range 2 {
		if err := p.Check(context.Background(), "s", Asker{}, `python -c "print('hello')"`); err != nil {
			t.Fatal(err)
		}
	}
	if j.calls.Load() != 2 {
		t.Errorf("judge called %d times, want 2", j.calls.Load())
	}
}

func TestSmartApprovalNonInteractive(t *testing.T) {
	p := &Policy{Mode: ModeSmart, Judge: judging(JudgeEscalate, nil)}
	denied(t, p.Check(context.Background(), "s", Asker{}, dangerousCmd), shell.Dangerous, "nobody can be asked")
	p = &Policy{Mode: ModeSmart, Judge: judging(JudgeEscalate, nil), NonInteractive: NonInteractiveAllow}
	if err := p.Check(context.Background(), "s", Asker{}, dangerousCmd); err != nil {
		t.Fatal(err)
	}
	p = &Policy{Mode: ModeSmart} // no judge at all: a person decides
	denied(t, p.Check(context.Background(), "s", Asker{}, dangerousCmd), shell.Dangerous, "nobody can be asked")
}

func TestSmartApprovalJudgeTimeout(t *testing.T) {
	slow := &judge{fn: func(ctx context.Context, _ Request) (Judgement, error) {
		<-ctx.Done()
		return JudgeApprove, ctx.Err()
	}}
	pr := answering(Once)
	p := &Policy{Mode: ModeSmart, Judge: slow, JudgeTimeout: 5 * time.Millisecond}
	if err := p.Check(context.Background(), "s", Asker{Prompter: pr}, dangerousCmd); err != nil {
		t.Fatal(err)
	}
	if pr.count() != 1 {
		t.Errorf("a timed-out judge did not escalate to the user")
	}
}

func TestSmartApprovalSeesTheFinding(t *testing.T) {
	var got Request
	j := &judge{fn: func(_ context.Context, r Request) (Judgement, error) {
		got = r
		return JudgeApprove, nil
	}}
	p := &Policy{Mode: ModeSmart, Judge: j}
	if err := p.Check(context.Background(), "s", Asker{}, "git push --force"); err != nil {
		t.Fatal(err)
	}
	if got.Command != "git push --force" || got.Verdict.Rule != "git_force_push" {
		t.Errorf("judge asked %+v", got)
	}
}
