package curator

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// idleness is what the schedule is told of turns, set by the test.
type idleness struct {
	mu    sync.Mutex
	since time.Time
	busy  bool
}

func (i *idleness) set(since time.Time, busy bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.since, i.busy = since, busy
}

func (i *idleness) get(context.Context) (time.Time, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.since, i.busy
}

// loop starts a schedule and returns the channel its runs are told on and
// a stop that waits for it to end.
func loop(t *testing.T, clk *clock.Fake, state string, idle *idleness) (<-chan time.Time, func()) {
	runs := make(chan time.Time, 4)
	s := &Schedule{Interval: 168 * time.Hour, MinIdle: 2 * time.Hour, StatePath: state, Clock: clk, Idle: idle.get,
		Run: func(context.Context) (string, error) { runs <- clk.Now(); return "1 archived", nil }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Loop(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return runs, func() { cancel(); <-done }
}

// noRun fails when a run happened; the loop must be asleep.
func noRun(t *testing.T, runs <-chan time.Time, when string) {
	t.Helper()
	select {
	case at := <-runs:
		t.Fatalf("%s: the curator ran at %v", when, at)
	default:
	}
}

// TestScheduleWaitsForIntervalAndIdle: the first sight starts the count;
// nothing runs before the interval, nor after it while a turn started
// less than min_idle_hours ago or one is running; then it runs, and the
// run is recorded so a restart waits a whole interval again.
func TestScheduleWaitsForIntervalAndIdle(t *testing.T) {
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	state := filepath.Join(t.TempDir(), "skills", ".curator", "state.json")
	idle := &idleness{since: t0}
	runs, stop := loop(t, clk, state, idle)

	clk.BlockUntil(1)
	if st, err := ReadState(state); err != nil || !st.LastRun.Equal(t0) {
		t.Fatalf("first sight: state %+v, %v", st, err)
	}
	clk.Advance(167 * time.Hour)
	clk.BlockUntil(1)
	noRun(t, runs, "before the interval")

	idle.set(t0.Add(167*time.Hour+30*time.Minute), false) // a turn started
	clk.Advance(time.Hour)
	clk.BlockUntil(1)
	noRun(t, runs, "half an hour after a turn")
	clk.Advance(time.Hour)
	clk.BlockUntil(1)
	noRun(t, runs, "an hour and a half after a turn")
	clk.Advance(30 * time.Minute)
	if at := <-runs; !at.Equal(t0.Add(169*time.Hour + 30*time.Minute)) {
		t.Fatalf("ran at %v", at)
	}
	clk.BlockUntil(1)
	st, err := ReadState(state)
	if err != nil || !st.LastRun.Equal(t0.Add(169*time.Hour+30*time.Minute)) || st.Summary != "1 archived" {
		t.Fatalf("state after the run %+v, %v", st, err)
	}

	// A restart a day later reads the run and waits out the interval.
	stop()
	clk.Advance(24 * time.Hour)
	runs, _ = loop(t, clk, state, idle)
	clk.BlockUntil(1)
	noRun(t, runs, "at the restart")
	clk.Advance(143 * time.Hour)
	clk.BlockUntil(1)
	noRun(t, runs, "before the interval after the restart")
	idle.set(t0, true) // a turn is running
	clk.Advance(time.Hour)
	clk.BlockUntil(1)
	noRun(t, runs, "while a turn runs")
	idle.set(t0, false)
	clk.Advance(10 * time.Minute)
	if at := <-runs; !at.Equal(t0.Add(337*time.Hour + 40*time.Minute)) {
		t.Fatalf("ran at %v after the turn", at)
	}
}

// TestScheduleRunByHandMovesNextRun: a run recorded by hermes skills
// curate (another process) puts the scheduled one off.
func TestScheduleRunByHandMovesNextRun(t *testing.T) {
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	state := filepath.Join(t.TempDir(), "state.json")
	if err := WriteState(state, State{LastRun: t0.Add(-100 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	runs, _ := loop(t, clk, state, &idleness{since: t0.Add(-time.Hour * 24)})
	clk.BlockUntil(1)
	if err := WriteState(state, State{LastRun: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(68 * time.Hour)
	clk.BlockUntil(1)
	noRun(t, runs, "after a run by hand")
	clk.Advance(101 * time.Hour)
	<-runs
}
