// Package team is the durable task queue a team of agents works through:
// a coordinator posts tasks for roles, workers claim the tasks of their
// role, run them and leave artifacts, and the coordinator waits for them.
// Everything lives in state.db, so several processes share one queue, a
// crashed worker's task is claimed again once its lease runs out, and a
// run resumes after a crash without redoing the tasks already done.
//
// A task moves waiting → ready → claimed → done | failed | cancelled. It
// is ready once every input is done. A claim is a lease: a worker renews
// it while it works, and a claim whose lease ran out goes back to ready
// (counting the attempt) at the next Claim of any worker. A failed
// attempt goes back to ready until the task's attempts are used up; then
// the task fails, and so does every task waiting on it, directly or not,
// since it can never get its inputs. Cancelling or finishing a run
// cancels the tasks of it not finished yet.
package team

import (
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// ErrNotFound is returned (wrapped) for a run or task the store does not have.
var ErrNotFound = errors.New("not found")

// ErrLeaseLost is returned (wrapped) when a worker renews, completes or
// fails a task it no longer holds: its lease ran out and another worker
// claimed the task, or the run was cancelled.
var ErrLeaseLost = errors.New("the task is no longer held by this claim")

// StoreOptions tune a Store. The zero value is ready to use.
type StoreOptions struct {
	// Clock is the clock for timestamps, leases and Wait's polling; nil
	// means the real clock.
	Clock clock.Clock
	// PollInterval is how often Wait reads the tasks again to see what
	// other processes finished; zero means one second. Finishes made
	// through this Store wake Wait at once.
	PollInterval time.Duration
}

// Store holds the team tables of one state.db. It is safe for concurrent
// use, and several processes may share the file: every change is one
// write transaction (BEGIN IMMEDIATE), which SQLite runs one at a time
// across processes.
type Store struct {
	db   sqldb.DB
	read *sql.DB
	clk  clock.Clock
	poll time.Duration

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a task finishes or becomes ready
}

// NewStore returns the queue over db, whose Open has brought the team
// tables up to date. db is closed by whoever opened it.
func NewStore(db sqldb.DB, opt StoreOptions) *Store {
	poll := opt.PollInterval
	if poll <= 0 {
		poll = time.Second
	}
	return &Store{db: db, read: db.Reader(), clk: clock.OrReal(opt.Clock), poll: poll, changed: make(chan struct{})}
}

// signal wakes every Wait and ClaimWait of this Store.
func (s *Store) signal() {
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// changes is the channel the next signal closes.
func (s *Store) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *Store) now() int64 { return s.clk.Now().UnixMicro() }

// fromMicros is a stored time; 0 is the zero time.
func fromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}
