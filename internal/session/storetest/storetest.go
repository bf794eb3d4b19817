// Package storetest is the conformance suite for session.Store: every
// storage engine runs it, so code written against one store behaves the
// same on all of them.
//
// A store passes when it meets the contract of session.Store and the
// choices this suite pins down where the interface is silent: times
// round-trip to the microsecond and come back in UTC; a session's
// ParentID must name an existing session; Messages of an unknown session
// is ErrNotFound; searching never fails on what the user typed. A store
// that implements session.Leaser is held to its contract too.
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// Run runs the suite. open must return a new, empty store for each call;
// Run closes it when the subtest ends.
func Run(t *testing.T, open func(t *testing.T) session.Store) {
	fresh := func(t *testing.T) session.Store {
		t.Helper()
		s := open(t)
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, s session.Store)
	}{
		{"CreateGet", testCreateGet},
		{"CreateRejects", testCreateRejects},
		{"ListLatest", testListLatest},
		{"NotFound", testNotFound},
		{"AppendRoundTrip", testAppendRoundTrip},
		{"AppendOrderAndCounts", testAppendOrderAndCounts},
		{"Around", testAround},
		{"UsageTitleEnd", testUsageTitleEnd},
		{"DailyUsage", testDailyUsage},
		{"UserFilters", testUserFilters},
		{"Delete", testDelete},
		{"Rewind", testRewind},
		{"Stats", testStats},
		{"SearchWords", testSearchWords},
		{"SearchRanking", testSearchRanking},
		{"SearchChinese", testSearchChinese},
		{"SearchSubstring", testSearchSubstring},
		{"SearchSyntax", testSearchSyntax},
		{"SearchFilters", testSearchFilters},
		{"SearchLineage", testSearchLineage},
		{"ConcurrentAppend", testConcurrentAppend},
		{"Lease", testLease},
		{"LeaseRace", testLeaseRace},
		{"Reports", testReports},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, fresh(t)) })
	}
}

// ctx is the context of one subtest.
func ctx(t *testing.T) context.Context { return t.Context() }

// base is a fixed time with microseconds, the precision stores keep.
var base = time.Date(2026, 12, 2, 11, 7, 37, 123456000, time.UTC)

// create stores a session and fails the test if it cannot.
func create(t *testing.T, s session.Store, sess session.Session) *session.Session {
	t.Helper()
	if err := s.Create(ctx(t), &sess); err != nil {
		t.Fatalf("Create(%+v): %v", sess, err)
	}
	return &sess
}

// appendMsgs appends messages and fails the test if it cannot.
func appendMsgs(t *testing.T, s session.Store, sessionID string, msgs ...*session.Message) {
	t.Helper()
	if err := s.Append(ctx(t), sessionID, msgs...); err != nil {
		t.Fatalf("Append(%s, %d messages): %v", sessionID, len(msgs), err)
	}
}

// get returns a session and fails the test if it cannot.
func get(t *testing.T, s session.Store, id string) *session.Session {
	t.Helper()
	got, err := s.Get(ctx(t), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return got
}

// wantNotFound fails the test unless err is ErrNotFound.
func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, session.ErrNotFound) {
		t.Errorf("%s: error %v, want ErrNotFound", what, err)
	}
}

// sameTime fails the test unless got is want in UTC.
func sameTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
	if !got.IsZero() && got.Location() != time.UTC {
		t.Errorf("%s location = %v, want UTC", what, got.Location())
	}
}
