package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// testDailyUsage: every model call's usage, through AddUsage or Record,
// adds to today's row of the session's user, tenant and model; rows
// filter by user and tenant; the local owner's have empty ones.
func testDailyUsage(t *testing.T, s session.Store) {
	ana := create(t, s, session.Session{Source: "telegram", Model: "m1", User: "ana", Tenant: "acme"})
	bob := create(t, s, session.Session{Source: "api", Model: "m1", User: "bob", Tenant: "globex"})
	own := create(t, s, session.Session{Source: "cli", Model: "m2"})
	for _, step := range []struct {
		id string
		u  session.Usage
		m  bool // through Record with a message
	}{
		{ana.ID, session.Usage{InputTokens: 100, OutputTokens: 10, CostUSD: 0.5}, false},
		{ana.ID, session.Usage{InputTokens: 50, OutputTokens: 5, CostUSD: 0.25}, true},
		{bob.ID, session.Usage{InputTokens: 7, OutputTokens: 1}, false},
		{own.ID, session.Usage{InputTokens: 3, OutputTokens: 2}, true},
	} {
		var err error
		if step.m {
			err = s.Record(ctx(t), step.id, step.u, assistantMsg("ok"))
		} else {
			err = s.AddUsage(ctx(t), step.id, step.u)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	today := time.Now().UTC().Format(time.DateOnly)
	rows, err := s.DailyUsage(ctx(t), session.UsageQuery{From: today, User: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	want := session.DailyUsage{Day: today, User: "ana", Tenant: "acme", Model: "m1", Calls: 2, InputTokens: 150, OutputTokens: 15, CostUSD: 0.75}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("ana's usage = %+v, want %+v", rows, want)
	}
	rows, err = s.DailyUsage(ctx(t), session.UsageQuery{Tenant: "globex"})
	if err != nil || len(rows) != 1 || rows[0].User != "bob" || rows[0].InputTokens != 7 {
		t.Errorf("globex's usage = %+v, %v", rows, err)
	}
	rows, err = s.DailyUsage(ctx(t), session.UsageQuery{})
	if err != nil || len(rows) != 3 {
		t.Fatalf("every row: %+v, %v", rows, err)
	}
	if rows[0].User != "" || rows[0].Model != "m2" || rows[0].InputTokens != 3 {
		t.Errorf("the owner's row = %+v, want no user, m2, 3 tokens in", rows[0])
	}
	if rows, err := s.DailyUsage(ctx(t), session.UsageQuery{To: "2000-01-01"}); err != nil || len(rows) != 0 {
		t.Errorf("usage before 2000: %+v, %v", rows, err)
	}
}

// testUserFilters: List and Search keep to a user's or a tenant's
// sessions when asked, and Owner lists the sessions of no user.
func testUserFilters(t *testing.T, s session.Store) {
	ana := create(t, s, session.Session{Source: "telegram", User: "ana", Tenant: "acme"})
	abe := create(t, s, session.Session{Source: "api", User: "abe", Tenant: "acme"})
	bob := create(t, s, session.Session{Source: "telegram", User: "bob", Tenant: "globex"})
	own := create(t, s, session.Session{Source: "cli"})
	for _, sess := range []*session.Session{ana, abe, bob, own} {
		if err := s.Append(ctx(t), sess.ID, userMsg("the launch code of "+sess.ID)); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(list []session.Session) []string {
		var out []string
		for _, x := range list {
			out = append(out, x.ID)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(v ...string) []string { slices.Sort(v); return v }
	for _, tc := range []struct {
		opt  session.ListOptions
		want []string
	}{
		{session.ListOptions{User: "ana"}, []string{ana.ID}},
		{session.ListOptions{Tenant: "acme"}, sorted(ana.ID, abe.ID)},
		{session.ListOptions{Owner: true}, []string{own.ID}},
		{session.ListOptions{User: "ana", Tenant: "globex"}, nil},
	} {
		list, err := s.List(ctx(t), tc.opt)
		if err != nil || !slices.Equal(ids(list), tc.want) {
			t.Errorf("List(%+v) = %v, %v; want %v", tc.opt, ids(list), err, tc.want)
		}
	}
	for _, q := range []string{"launch code", "launch co", "aunch"} {
		hits, err := s.Search(ctx(t), q, session.SearchOptions{User: "bob"})
		if err != nil || len(hits) != 1 || hits[0].SessionID != bob.ID {
			t.Errorf("Search(%q, bob) = %+v, %v; want bob's session only", q, hits, err)
		}
		hits, err = s.Search(ctx(t), q, session.SearchOptions{Tenant: "acme"})
		if err != nil || len(hits) != 2 {
			t.Errorf("Search(%q, acme) = %d hits, %v; want 2", q, len(hits), err)
		}
	}
}
