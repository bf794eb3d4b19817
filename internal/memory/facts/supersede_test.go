package facts

import (
	"context"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// A later fact of the same subject (case and surrounding space aside)
// supersedes the earlier one: only the newer is listed, found and
// recalled, and ListAll shows the older marked with its successor. Facts
// stored together, of other subjects, or of another user stay current.
func TestSupersession(t *testing.T) { eachBackend(t, testSupersession) }

func testSupersession(t *testing.T, backend string) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC))
	s := openOn(t, backend, Options{Clock: clk})
	mustAdd(t, s,
		Fact{Kind: KindPreference, Subject: "weekly report day", Content: "The user wants the weekly report on Friday afternoons."},
		Fact{Kind: KindPreference, Subject: "weekly report day", Content: "The weekly report also goes to the sales channel."},
		Fact{Kind: KindFact, Subject: "staging server", Content: "The staging server is staging-2."},
	)
	mustAdd(t, s.For("ana"), Fact{Kind: KindPreference, Subject: "weekly report day", Content: "Ana wants her report on Tuesdays."})
	if got, _ := s.List(ctx, 0); len(got) != 3 {
		t.Fatalf("facts stored together superseded each other: %d current, want 3", len(got))
	}
	clk.Advance(time.Hour)
	mustAdd(t, s, Fact{Kind: KindPreference, Subject: " Weekly Report Day", Content: "The user now wants the weekly report on Monday mornings."})

	current, err := s.List(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var newest int64
	for _, f := range current {
		if f.Subject == "Weekly Report Day" {
			newest = f.ID
		}
		if f.Subject == "weekly report day" {
			t.Errorf("a superseded fact is listed as current: %q", f.Content)
		}
	}
	if len(current) != 2 || newest == 0 {
		t.Fatalf("current facts = %+v; want the Monday report and the staging server", current)
	}
	all, err := s.ListAll(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	superseded := 0
	for _, f := range all {
		if f.SupersededBy != 0 {
			superseded++
			if f.SupersededBy != newest || f.Subject != "weekly report day" {
				t.Errorf("superseded fact %+v, want one of the old subject, by %d", f, newest)
			}
		}
	}
	if len(all) != 4 || superseded != 2 {
		t.Fatalf("ListAll = %d facts with %d superseded; want 4 with 2", len(all), superseded)
	}
	found, err := Recall(ctx, s, "Which day do I want the weekly report?", 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if f.SupersededBy != 0 || f.Subject == "weekly report day" {
			t.Errorf("recall returned a superseded fact: %q", f.Content)
		}
	}
	if len(found) == 0 || found[0].ID != newest {
		t.Errorf("recall = %+v, want the Monday report first", found)
	}
	if got, _ := s.For("ana").List(ctx, 0); len(got) != 1 || got[0].SupersededBy != 0 {
		t.Errorf("another user's fact of the subject: %+v, want it current", got)
	}
}

// Expire drops the facts of every owner neither stored nor recalled
// since the time given, and keeps a fact recalled since.
func TestExpire(t *testing.T) { eachBackend(t, testExpire) }

func testExpire(t *testing.T, backend string) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	s := openOn(t, backend, Options{Clock: clk})
	mustAdd(t, s, Fact{Kind: KindFact, Subject: "old server", Content: "The old build server is buildbox-1."},
		Fact{Kind: KindFact, Subject: "staging server", Content: "The staging server is staging-2."})
	mustAdd(t, s.For("ana"), Fact{Kind: KindFact, Subject: "ana's laptop", Content: "Ana works on a ThinkPad."})
	clk.Advance(100 * 24 * time.Hour)
	if got, err := Recall(ctx, s, "What is the staging server?", 5); err != nil || len(got) != 1 {
		t.Fatalf("recall = %+v, %v", got, err)
	}
	clk.Advance(100 * 24 * time.Hour)
	mustAdd(t, s, Fact{Kind: KindFact, Subject: "editor", Content: "The user edits in Helix."})
	n, err := s.Expire(ctx, clk.Now().Add(-180*24*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("Expire: %d, %v; want the old build server and Ana's laptop gone", n, err)
	}
	left, _ := s.List(ctx, 0)
	if len(left) != 2 {
		t.Fatalf("left = %+v; want the recalled staging server and the new editor", left)
	}
	if got, _ := s.For("ana").List(ctx, 0); len(got) != 0 {
		t.Errorf("ana's unused fact was kept: %+v", got)
	}
	// The record of an extraction goes with the time: the session may be
	// extracted again, and the day's count is forgotten.
	if _, err := s.ClaimExtraction(ctx, "old-session", 4, 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(200 * 24 * time.Hour)
	if _, err := s.Expire(ctx, clk.Now().Add(-180*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ClaimExtraction(ctx, "old-session", 4, 1); err != nil {
		t.Errorf("a session extracted before the expiry could not be claimed again: %v", err)
	}
}
