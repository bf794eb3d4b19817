package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// Reporter is what a store shared by several processes gives beyond
// session.Store: reading a session from a point (a process catching up
// on turns another one wrote), its newest messages (a dashboard page)
// and the turns running now. Both of hermes's stores give it; the suite
// tests it when the store does.
type Reporter interface {
	MessagesAfter(ctx context.Context, sessionID string, afterID int64) ([]session.Message, error)
	LastMessages(ctx context.Context, sessionID string, n int) ([]session.Message, error)
	Running(ctx context.Context, now time.Time) ([]session.RunningTurn, error)
}

// testReports holds Reporter to its contract.
func testReports(t *testing.T, s session.Store) {
	r, ok := s.(Reporter)
	if !ok {
		t.Skip("the store does not report")
	}
	sess := create(t, s, session.Session{Source: "cli"})
	other := create(t, s, session.Session{Source: "cli"})
	a, b, c := userMsg("one"), assistantMsg("two"), userMsg("three")
	appendMsgs(t, s, sess.ID, a, b)
	appendMsgs(t, s, other.ID, userMsg("elsewhere"))
	appendMsgs(t, s, sess.ID, c)

	ids := func(msgs []session.Message) []int64 {
		var out []int64
		for _, m := range msgs {
			out = append(out, m.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		got  func() ([]session.Message, error)
		want []int64
	}{
		{"MessagesAfter(first)", func() ([]session.Message, error) { return r.MessagesAfter(ctx(t), sess.ID, a.ID) }, []int64{b.ID, c.ID}},
		{"MessagesAfter(0)", func() ([]session.Message, error) { return r.MessagesAfter(ctx(t), sess.ID, 0) }, []int64{a.ID, b.ID, c.ID}},
		{"MessagesAfter(last)", func() ([]session.Message, error) { return r.MessagesAfter(ctx(t), sess.ID, c.ID) }, nil},
		{"LastMessages(2)", func() ([]session.Message, error) { return r.LastMessages(ctx(t), sess.ID, 2) }, []int64{b.ID, c.ID}},
		{"LastMessages(10)", func() ([]session.Message, error) { return r.LastMessages(ctx(t), sess.ID, 10) }, []int64{a.ID, b.ID, c.ID}},
		{"LastMessages(-1)", func() ([]session.Message, error) { return r.LastMessages(ctx(t), sess.ID, -1) }, nil},
	} {
		msgs, err := tc.got()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := ids(msgs); !slices.Equal(got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, got, tc.want)
		}
	}
	if msgs, err := r.LastMessages(ctx(t), sess.ID, 1); err == nil && len(msgs) == 1 && msgs[0].Text() != "three" {
		t.Errorf("LastMessages(1) = %q, want the message itself", msgs[0].Text())
	}

	l, ok := s.(session.Leaser)
	if !ok {
		return
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if _, err := l.AcquireLease(ctx(t), session.LeaseRequest{SessionID: sess.ID, Holder: "host/1", Now: now, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AcquireLease(ctx(t), session.LeaseRequest{SessionID: other.ID, Holder: "host/2", Now: now.Add(-time.Hour), TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	running, err := r.Running(ctx(t), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(running) != 1 || running[0].SessionID != sess.ID || running[0].Holder != "host/1" || !running[0].Until.Equal(now.Add(time.Minute)) {
		t.Errorf("Running = %+v, want only %s held by host/1 until %v (the other lease lapsed)", running, sess.ID, now.Add(time.Minute))
	}
}
