package safety

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// prompter is a scripted Prompter that records what it is asked.
type prompter struct {
	mu     sync.Mutex
	asked  []Request
	answer func(ctx context.Context, r Request) (Answer, error)
}

func (p *prompter) Prompt(ctx context.Context, r Request) (Answer, error) {
	p.mu.Lock()
	p.asked = append(p.asked, r)
	p.mu.Unlock()
	return p.answer(ctx, r)
}

func (p *prompter) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.asked)
}

// answering returns a prompter that always gives a.
func answering(a Answer) *prompter {
	return &prompter{answer: func(context.Context, Request) (Answer, error) { return a, nil }}
}

// blocking returns a prompter that waits for its context, as a person who
// never answers.
func blocking() *prompter {
	return &prompter{answer: func(ctx context.Context, _ Request) (Answer, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	}}
}

// denied asserts that err is a *DeniedError whose reason contains want.
func denied(t *testing.T, err error, level shell.Level, want string) *DeniedError {
	t.Helper()
	var d *DeniedError
	if !errors.As(err, &d) {
		t.Fatalf("got %v, want a *DeniedError", err)
	}
	if d.Verdict.Level != level || !strings.Contains(d.Reason, want) {
		t.Fatalf("denied with %s, reason %q; want %s, reason containing %q", d.Verdict, d.Reason, level, want)
	}
	if !strings.Contains(d.Error(), "Do not retry") {
		t.Errorf("message %q does not tell the model not to retry", d.Error())
	}
	return d
}

const dangerousCmd = "rm -rf build"

func TestPolicySafeCommandRuns(t *testing.T) {
	pr := answering(Deny)
	p := &Policy{}
	if err := p.Check(context.Background(), "s", Asker{Prompter: pr}, "ls -la"); err != nil {
		t.Fatal(err)
	}
	if pr.count() != 0 {
		t.Error("a safe command was put to the user")
	}
}

func TestPolicyHardlineIsNeverAllowed(t *testing.T) {
	for name, tc := range map[string]struct {
		p   *Policy
		ask Asker
	}{
		"manual, user says always": {&Policy{}, Asker{Prompter: answering(Always)}},
		"yolo":                     {&Policy{}, Asker{Yolo: true}},
		"mode off":                 {&Policy{Mode: ModeOff}, Asker{}},
		"allowlisted rule":         {&Policy{Mode: ModeOff, Allowlist: []string{"delete_root", "*"}}, Asker{}},
		"smart, judge approves":    {&Policy{Mode: ModeSmart, Judge: judging(JudgeApprove, nil)}, Asker{}},
		"non-interactive allow":    {&Policy{NonInteractive: NonInteractiveAllow}, Asker{}},
		"job allowed":              {&Policy{}, Asker{NonInteractive: NonInteractiveAllow}},
		"front picks mode off":     {&Policy{}, Asker{Mode: ModeOff}},
	} {
		t.Run(name, func(t *testing.T) {
			err := tc.p.Check(context.Background(), "s", tc.ask, "sudo rm -rf /")
			d := denied(t, err, shell.Hardline, "never runs")
			if d.Verdict.Rule != "delete_root" || !strings.Contains(d.Error(), "ask the user to run it themselves") {
				t.Errorf("got %s: %v", d.Verdict, d)
			}
		})
	}
}

// TestPolicyAskerMode checks that a front's Mode replaces approvals.mode
// both ways: stricter (asks although approvals are off) and looser (runs
// without asking although approvals are manual).
func TestPolicyAskerMode(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		policy, asker Mode
		wantAsked     int
		wantErr       string
	}{
		"manual over off":   {ModeOff, ModeManual, 1, "the user denied"},
		"off over manual":   {ModeManual, ModeOff, 0, ""},
		"smart over off":    {ModeOff, ModeSmart, 0, "safety reviewer"},
		"unset keeps off":   {ModeOff, "", 0, ""},
		"unset keeps smart": {ModeSmart, "", 0, "safety reviewer"},
		"bad mode is named": {ModeOff, "careful", 0, `"careful" is not accepted`},
	} {
		t.Run(name, func(t *testing.T) {
			pr := answering(Deny)
			p := &Policy{Mode: tc.policy, Judge: judging(JudgeDeny, nil)}
			err := p.Check(ctx, "s", Asker{Prompter: pr, Mode: tc.asker}, dangerousCmd)
			if tc.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				denied(t, err, shell.Dangerous, tc.wantErr)
			}
			if pr.count() != tc.wantAsked {
				t.Errorf("asked %d times; want %d", pr.count(), tc.wantAsked)
			}
		})
	}
}

func TestPolicyAnswers(t *testing.T) {
	ctx := context.Background()
	t.Run("once asks every time", func(t *testing.T) {
		pr := answering(Once)
		p := &Policy{}
		for range 2 {
			if err := p.Check(ctx, "s", Asker{Prompter: pr}, dangerousCmd); err != nil {
				t.Fatal(err)
			}
		}
		if pr.count() != 2 {
			t.Errorf("asked %d times, want 2", pr.count())
		}
		if r := pr.asked[0]; r.SessionID != "s" || r.Command != dangerousCmd || r.Verdict.Rule != "recursive_delete" {
			t.Errorf("request %+v", r)
		}
	})
	t.Run("session grants the rule to that session only", func(t *testing.T) {
		pr := answering(Session)
		p := &Policy{}
		for _, step := range []struct {
			session, cmd string
			asked        int
		}{
			{"a", "rm -rf build", 1},
			{"a", "rm -r dist", 1}, // same rule, same session: not asked
			{"b", "rm -rf build", 2},
			{"a", "git reset --hard", 3}, // another rule
		} {
			if err := p.Check(ctx, step.session, Asker{Prompter: pr}, step.cmd); err != nil {
				t.Fatal(err)
			}
			if pr.count() != step.asked {
				t.Fatalf("after %s in %s: asked %d times, want %d", step.cmd, step.session, pr.count(), step.asked)
			}
		}
		p.EndSession("a")
		_ = p.Check(ctx, "a", Asker{Prompter: pr}, "rm -rf build")
		if pr.count() != 4 {
			t.Errorf("after EndSession the grant survived")
		}
	})
	t.Run("always persists and holds in every session", func(t *testing.T) {
		pr := answering(Always)
		var saved []string
		p := &Policy{OnAlways: func(rule string) error {
			saved = append(saved, rule)
			return errors.New("disk full") // logged; the grant still holds
		}}
		for _, s := range []string{"a", "b", "c"} {
			if err := p.Check(ctx, s, Asker{Prompter: pr}, dangerousCmd); err != nil {
				t.Fatal(err)
			}
		}
		if pr.count() != 1 || len(saved) != 1 || saved[0] != "recursive_delete" {
			t.Errorf("asked %d times, saved %v", pr.count(), saved)
		}
	})
	t.Run("deny", func(t *testing.T) {
		p := &Policy{}
		denied(t, p.Check(ctx, "s", Asker{Prompter: answering(Deny)}, dangerousCmd), shell.Dangerous, "the user denied it")
	})
	t.Run("no answer is a denial", func(t *testing.T) {
		p := &Policy{}
		denied(t, p.Check(ctx, "s", Asker{Prompter: answering(0)}, dangerousCmd), shell.Dangerous, "no valid answer")
	})
	t.Run("prompter error", func(t *testing.T) {
		p := &Policy{}
		failing := &prompter{answer: func(context.Context, Request) (Answer, error) {
			return Once, errors.New("terminal closed")
		}}
		denied(t, p.Check(ctx, "s", Asker{Prompter: failing}, dangerousCmd), shell.Dangerous, "terminal closed")
	})
}

func TestPolicySessionGrantCoversEveryFinding(t *testing.T) {
	pr := answering(Session)
	p := &Policy{}
	cmd := "git reset --hard && rm -rf build"
	if err := p.Check(context.Background(), "s", Asker{Prompter: pr}, cmd); err != nil {
		t.Fatal(err)
	}
	if got := len(pr.asked[0].Findings); got != 2 {
		t.Fatalf("request lists %d findings, want 2: %+v", got, pr.asked[0].Findings)
	}
	for _, c := range []string{"git reset --hard HEAD~1", "rm -r dist"} {
		if err := p.Check(context.Background(), "s", Asker{Prompter: pr}, c); err != nil {
			t.Fatal(err)
		}
	}
	if pr.count() != 1 {
		t.Errorf("asked %d times, want 1", pr.count())
	}
}

func TestPolicyWithoutApproval(t *testing.T) {
	for name, tc := range map[string]struct {
		p   *Policy
		ask Asker
	}{
		"yolo":                  {&Policy{}, Asker{Yolo: true, Prompter: answering(Deny)}},
		"mode off":              {&Policy{Mode: ModeOff}, Asker{Prompter: answering(Deny)}},
		"allowlist key":         {&Policy{Allowlist: []string{"recursive_delete"}}, Asker{}},
		"allowlist description": {&Policy{Allowlist: []string{"Recursive delete"}}, Asker{}},
		"allowlist glob":        {&Policy{Allowlist: []string{"rm -rf build*"}}, Asker{}},
		"non-interactive allow": {&Policy{NonInteractive: NonInteractiveAllow}, Asker{}},
		"cron mode allow":       {&Policy{}, Asker{NonInteractive: NonInteractiveAllow}},
	} {
		if err := tc.p.Check(context.Background(), "s", tc.ask, dangerousCmd); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A glob allows the command it matches, not another piece beside it.
	p := &Policy{Allowlist: []string{"rm -rf build*"}}
	denied(t, p.Check(context.Background(), "s", Asker{}, "rm -rf build; curl x | sh"), shell.Dangerous, "nobody can be asked")
}

func TestPolicyNonInteractiveDenies(t *testing.T) {
	for name, tc := range map[string]struct {
		p   *Policy
		ask Asker
	}{
		"no prompter":    {&Policy{}, Asker{}},
		"explicit deny":  {&Policy{NonInteractive: NonInteractiveDeny}, Asker{}},
		"cron mode deny": {&Policy{NonInteractive: NonInteractiveAllow}, Asker{NonInteractive: NonInteractiveDeny}},
	} {
		t.Run(name, func(t *testing.T) {
			denied(t, tc.p.Check(context.Background(), "s", tc.ask, dangerousCmd), shell.Dangerous, "nobody can be asked")
		})
	}
}

func TestPolicyTimeout(t *testing.T) {
	p := &Policy{Timeout: 10 * time.Millisecond}
	err := p.Check(context.Background(), "s", Asker{Prompter: blocking()}, dangerousCmd)
	denied(t, err, shell.Dangerous, "timed out")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v does not wrap context.DeadlineExceeded", err)
	}

	// A prompter that ignores its context cannot hold the command past
	// the timeout either.
	release := make(chan struct{})
	defer close(release)
	deaf := &prompter{answer: func(context.Context, Request) (Answer, error) {
		<-release
		return Once, nil
	}}
	denied(t, p.Check(context.Background(), "s", Asker{Prompter: deaf}, dangerousCmd), shell.Dangerous, "timed out")
}

func TestPolicyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr := &prompter{answer: func(pctx context.Context, _ Request) (Answer, error) {
		cancel()
		<-pctx.Done()
		return 0, pctx.Err()
	}}
	p := &Policy{}
	err := p.Check(ctx, "s", Asker{Prompter: pr}, dangerousCmd)
	denied(t, err, shell.Dangerous, "cancelled")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v does not wrap context.Canceled", err)
	}
}

func TestPolicyFor(t *testing.T) {
	var approver interface {
		ApproveCommand(ctx context.Context, command string) error
	} = (&Policy{}).For("s", Asker{})
	if err := approver.ApproveCommand(context.Background(), "ls"); err != nil {
		t.Error(err)
	}
	denied(t, approver.ApproveCommand(context.Background(), dangerousCmd), shell.Dangerous, "nobody can be asked")
}

// TestOnePolicyManyFronts: one Policy serves a terminal that can ask and a
// scheduled job that cannot at once; a grant in the terminal's session
// does not reach the job's.
func TestOnePolicyManyFronts(t *testing.T) {
	p := &Policy{}
	pr := answering(Session)
	ctx := context.Background()
	if err := p.For("chat", Asker{Prompter: pr}).ApproveCommand(ctx, dangerousCmd); err != nil {
		t.Fatal(err)
	}
	denied(t, p.For("job", Asker{}).ApproveCommand(ctx, dangerousCmd), shell.Dangerous, "nobody can be asked")
	if err := p.For("chat", Asker{}).ApproveCommand(ctx, dangerousCmd); err != nil {
		t.Errorf("the chat session's grant was lost: %v", err)
	}
	if pr.count() != 1 {
		t.Errorf("asked %d times, want 1", pr.count())
	}
}

func TestPolicyConcurrent(t *testing.T) {
	pr := answering(Session)
	p := &Policy{Allowlist: []string{"git_reset_hard"}}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			session := string(rune('a' + i%4))
			for _, cmd := range []string{dangerousCmd, "ls", "git reset --hard", "chmod 777 x"} {
				if err := p.Check(context.Background(), session, Asker{Prompter: pr}, cmd); err != nil {
					t.Error(err)
				}
			}
			p.EndSession(session)
		})
	}
	wg.Wait()
}
