package cron

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// t0 is the tests' starting instant: a Wednesday 08:30 UTC.
var t0 = time.Date(2026, 12, 2, 8, 30, 0, 0, time.UTC)

// call is one Runner invocation.
type call struct {
	job string
	at  time.Time
}

// recorder is a Runner that records its calls; runs of jobs in gate
// block until the gate channel is closed. started, when set, receives the
// job name of each run as it starts.
type recorder struct {
	mu      sync.Mutex
	calls   []call
	gate    map[string]chan struct{}
	started chan string
}

func (r *recorder) Run(ctx context.Context, j Job, at time.Time) RunResult {
	r.mu.Lock()
	r.calls = append(r.calls, call{j.Name, at})
	g := r.gate[j.Name]
	r.mu.Unlock()
	if r.started != nil {
		r.started <- j.Name
	}
	if g != nil {
		select {
		case <-g:
		case <-ctx.Done():
			return RunResult{Err: ctx.Err()}
		}
	}
	return RunResult{Output: "done " + j.Name, SessionID: "s-" + at.Format("150405")}
}

func (r *recorder) fires(job string) []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Time
	for _, c := range r.calls {
		if c.job == job {
			out = append(out, c.at)
		}
	}
	return out
}

// node is one scheduler process: a store, a fake clock and a scheduler.
type node struct {
	t        *testing.T
	clk      *clock.Fake
	store    *Store
	sched    *Scheduler
	idle     chan time.Duration
	runsDone chan struct{} // a job's runs ended
	cancel   context.CancelFunc
	done     chan struct{}
}

func dbPath(t testing.TB) string { return filepath.Join(t.TempDir(), "state.db") }

// openStore opens the database at x, as a process of its own would, and
// the job store over it with clk as its time source; the database is
// closed when the test ends.
func openStore(t *testing.T, x dbtest.Target, clk *clock.Fake) *Store {
	t.Helper()
	st, err := NewStore(x.Open(t), StoreOptions{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// eachBackend runs f as a subtest per backend, for tests whose own
// subtests each open a new database there (dbtest.New).
func eachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	for _, b := range dbtest.Backends() {
		t.Run(b, func(t *testing.T) { f(t, b) })
	}
}

// startNode starts a scheduler on the database at x, with a handle of
// its own, and waits for its first sleep.
func startNode(t *testing.T, x dbtest.Target, clk *clock.Fake, holder string, r Runner, more ...func(*Options)) *node {
	t.Helper()
	n := &node{t: t, clk: clk, store: openStore(t, x, clk), idle: make(chan time.Duration, 1000),
		runsDone: make(chan struct{}, 1), done: make(chan struct{})}
	opt := Options{Store: n.store, Runner: r, Clock: clk, Holder: holder, Logger: testLogger(t)}
	for _, f := range more {
		f(&opt)
	}
	var err error
	n.sched, err = New(opt)
	if err != nil {
		t.Fatal(err)
	}
	n.sched.onIdle = func(d time.Duration) { n.idle <- d }
	n.sched.onRunsDone = func() {
		select {
		case n.runsDone <- struct{}{}:
		default: // a signal is already waiting
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	go func() { defer close(n.done); n.sched.Run(ctx) }()
	t.Cleanup(n.stop)
	n.waitIdle()
	return n
}

// stop ends the scheduler as a clean shutdown would.
func (n *node) stop() {
	n.cancel()
	<-n.done
}

// waitIdle waits until the loop is about to sleep again and returns the
// sleep it chose.
func (n *node) waitIdle() time.Duration {
	n.t.Helper()
	select {
	case d := <-n.idle:
		return d
	case <-time.After(10 * time.Second):
		n.t.Fatal("scheduler did not go back to sleep")
		return 0
	}
}

// waitRuns waits until no run is in progress.
func (n *node) waitRuns() {
	n.t.Helper()
	for {
		n.sched.mu.Lock()
		busy := len(n.sched.running)
		n.sched.mu.Unlock()
		if busy == 0 {
			return
		}
		select {
		case <-n.runsDone:
		case <-time.After(10 * time.Second):
			n.t.Fatal("runs did not finish")
		}
	}
}

// advance moves the clock on; if that wakes the loop it waits for the
// loop to settle and, unless keepRunning, for the runs it started.
func (n *node) advance(d time.Duration, keepRunning bool) {
	n.t.Helper()
	if n.clk.Advance(d) > 0 {
		n.waitIdle()
	}
	if !keepRunning {
		n.waitRuns()
	}
}

// statuses counts a job's runs by status.
func statuses(t *testing.T, st *Store, job string) map[string]int {
	t.Helper()
	runs, err := st.History(context.Background(), job, 1000)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for _, r := range runs {
		m[r.Status]++
	}
	return m
}

func createJob(t *testing.T, st *Store, name, schedule, catchUp string) Job {
	t.Helper()
	j, err := st.Create(context.Background(), Job{Name: name, Spec: Spec{Schedule: schedule, Prompt: "p", CatchUp: catchUp}})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// testLogger writes the scheduler's log to the test log.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}
