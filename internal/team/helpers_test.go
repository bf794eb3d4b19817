package team

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/sqldb"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// each runs f as a subtest on each backend, with a Store on a new
// database and a fake clock.
func each(t *testing.T, f func(t *testing.T, s *Store, clk *clock.Fake)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, db sqldb.DB) {
		clk := clock.NewFake(epoch)
		f(t, NewStore(db, StoreOptions{Clock: clk}), clk)
	})
}

func mustRun(t testing.TB, s *Store) Run {
	t.Helper()
	r, err := s.CreateRun(context.Background(), "research", "write a report")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustPost(t testing.TB, s *Store, run int64, role string, inputs ...int64) Task {
	t.Helper()
	tk, err := s.Post(context.Background(), run, Post{Role: role, Description: "do " + role, Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func mustClaim(t testing.TB, s *Store, role, holder string) Task {
	t.Helper()
	tk, ok, err := s.Claim(context.Background(), role, holder, time.Minute)
	if err != nil || !ok {
		t.Fatalf("claim %s: ok=%v err=%v", role, ok, err)
	}
	return tk
}

func mustState(t testing.TB, s *Store, id int64, want State) Task {
	t.Helper()
	tk, err := s.Task(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if tk.State != want {
		t.Fatalf("task %d is %s (error %q), want %s", id, tk.State, tk.Error, want)
	}
	return tk
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("err = %v, want %v", err, target)
	}
}
