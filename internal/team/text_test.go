package team

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// TestTextPostgresCannotHold: NUL bytes and invalid UTF-8, which tool
// output and models produce and PostgreSQL's text refuses, never make a
// write of the queue fail, whichever field they are in; PostgreSQL keeps
// each as U+FFFD, and what was stored is found again by the same value.
func TestTextPostgresCannotHold(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		for _, bad := range []string{"\x00", "\xff\xfe", "a\x00b\xc3"} {
			r, err := s.StartRun(ctx, Start{Team: "team" + bad, Goal: "goal" + bad, Spec: `{"x":"` + bad + `"}`, Holder: "host" + bad})
			if err != nil {
				t.Fatalf("StartRun with %q: %v", bad, err)
			}
			if err := s.HoldRun(ctx, r, "other"+bad, 0); err != nil {
				t.Errorf("HoldRun from and to holders with %q: %v", bad, err)
			}
			if err := s.SetRunSession(ctx, r.ID, "sess"+bad); err != nil {
				t.Errorf("SetRunSession with %q: %v", bad, err)
			}
			role, desc := "role"+bad, "do "+bad
			a, err := s.Post(ctx, r.ID, Post{Role: role, Description: desc})
			if err != nil {
				t.Fatalf("Post with %q: %v", bad, err)
			}
			if again, found, err := s.PostOnce(ctx, r.ID, Post{Role: role, Description: desc}); err != nil || !found || again.ID != a.ID {
				t.Errorf("PostOnce of the same task with %q = %d, %v, %v; want task %d found", bad, again.ID, found, err, a.ID)
			}
			b, err := s.Post(ctx, r.ID, Post{Role: role, Description: desc + "2", MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			holder := "worker" + bad
			tk, ok, err := s.Claim(ctx, role, holder, time.Minute)
			if err != nil || !ok || tk.ID != a.ID {
				t.Fatalf("Claim with %q = %d, %v, %v; want task %d", bad, tk.ID, ok, err, a.ID)
			}
			if err := s.Renew(ctx, a.ID, holder, time.Minute); err != nil {
				t.Errorf("Renew by a holder with %q: %v", bad, err)
			}
			name := "out" + bad[len(bad)-1:]
			if strings.ContainsRune(name, 0) {
				name = "out" // control characters are refused in names
			}
			err = s.Complete(ctx, a.ID, holder, Result{Summary: "sum" + bad, SessionID: "s" + bad, Artifacts: []Artifact{
				{Name: name, Kind: KindText, Content: "binary " + bad + " output"},
				{Name: "doc", Kind: KindJSON, Content: `{"k":"` + strings.ReplaceAll(bad, "\x00", "") + `"}`},
			}})
			if err != nil {
				t.Fatalf("Complete with %q: %v", bad, err)
			}
			art, err := s.Artifact(ctx, a.ID, name)
			if err != nil || art.Content != s.text("binary "+bad+" output") {
				t.Errorf("Artifact %q = %q, %v", name, art.Content, err)
			}
			if got := mustState(t, s, a.ID, StateDone); got.Summary != s.text("sum"+bad) || got.Role != s.text(role) {
				t.Errorf("done task: summary %q, role %q", got.Summary, got.Role)
			}
			if _, _, err := s.Claim(ctx, role, holder, time.Minute); err != nil {
				t.Fatal(err)
			}
			if st, err := s.Fail(ctx, b.ID, holder, "tool said "+bad); err != nil || st != StateFailed {
				t.Errorf("Fail with %q = %s, %v", bad, st, err)
			}
			if err := s.EndRun(ctx, r.ID, Outcome{State: RunFailed, Answer: "ans" + bad, Error: "err" + bad}); err != nil {
				t.Errorf("EndRun with %q: %v", bad, err)
			}
			if err := s.MarkDelivered(ctx, r.ID, "target"+bad); err != nil {
				t.Errorf("MarkDelivered with %q: %v", bad, err)
			}
			got, err := s.GetRun(ctx, r.ID)
			if err != nil || got.Goal != s.text("goal"+bad) || got.Holder != s.text("other"+bad) || got.Answer != s.text("ans"+bad) {
				t.Errorf("run with %q: %+v, %v", bad, got, err)
			}
		}
	})
}

// TestArtifactPathNotUTF8Refused: a file artifact's path is kept as text,
// so a path that is not UTF-8 is refused, naming it, rather than kept
// changed and pointing at no file.
func TestArtifactPathNotUTF8Refused(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		mustClaim(t, s, "search", "h")
		err := s.Complete(ctx, a.ID, "h", Result{Artifacts: []Artifact{{Name: "f", Kind: KindFile, Path: "/tmp/report-\xff.csv"}}})
		if err == nil || !strings.Contains(err.Error(), `path "/tmp/report-\xff.csv" is not valid UTF-8`) {
			t.Fatalf("Complete with a path that is not UTF-8: %v", err)
		}
		mustState(t, s, a.ID, StateClaimed)
	})
}
