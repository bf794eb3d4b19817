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
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqlitedb"
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
	db   *sqlitedb.DB
	read *sql.DB
	clk  clock.Clock
	poll time.Duration

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a task finishes or becomes ready
}

// NewStore returns the queue over db, whose Open has brought the team
// tables up to date. db is closed by whoever opened it.
func NewStore(db *sqlitedb.DB, opt StoreOptions) *Store {
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

// RunState is where a run is.
type RunState string

// The states of a run.
const (
	RunActive    RunState = "active"
	RunDone      RunState = "done"
	RunFailed    RunState = "failed"
	RunCancelled RunState = "cancelled"
)

// Run is one team's work toward a goal.
type Run struct {
	ID         int64
	Team       string
	Goal       string
	State      RunState
	CreatedAt  time.Time
	FinishedAt time.Time
}

// CreateRun starts a run of team toward goal.
func (s *Store) CreateRun(ctx context.Context, team, goal string) (Run, error) {
	if team == "" {
		return Run{}, errors.New("team: create run: team is empty; name the team the run belongs to")
	}
	r := Run{Team: team, Goal: goal, State: RunActive, CreatedAt: fromMicros(s.now())}
	err := s.db.WriteTx(ctx, "create team run", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO team_runs (team, goal, state, created_at) VALUES (?, ?, ?, ?)`,
			team, goal, string(RunActive), r.CreatedAt.UnixMicro())
		if err != nil {
			return err
		}
		r.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return Run{}, fmt.Errorf("team: create run: %w", err)
	}
	return r, nil
}

// GetRun returns run id, or an error wrapping ErrNotFound.
func (s *Store) GetRun(ctx context.Context, id int64) (Run, error) {
	var r Run
	var state string
	var created, finished int64
	err := s.read.QueryRowContext(ctx, `SELECT id, team, goal, state, created_at, finished_at FROM team_runs WHERE id = ?`, id).
		Scan(&r.ID, &r.Team, &r.Goal, &state, &created, &finished)
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("team: run %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Run{}, fmt.Errorf("team: get run %d: %w", id, err)
	}
	r.State, r.CreatedAt, r.FinishedAt = RunState(state), fromMicros(created), fromMicros(finished)
	return r, nil
}

// FinishRun ends an active run as done or failed: the coordinator has
// its answer, or gave up. Tasks of it not finished yet are cancelled, as
// by CancelRun, since nothing will read what they would produce; finished
// ones stay as they are, to be inspected.
func (s *Store) FinishRun(ctx context.Context, id int64, state RunState) error {
	if state != RunDone && state != RunFailed {
		return fmt.Errorf("team: finish run %d: state %q is not accepted; use done or failed (CancelRun cancels)", id, state)
	}
	return s.endRun(ctx, id, state, "the run finished without it")
}

// CancelRun cancels an active run and every task of it not finished yet:
// waiting and ready tasks are never claimed, and a worker holding a
// claimed one loses its lease at its next renewal.
func (s *Store) CancelRun(ctx context.Context, id int64) error {
	return s.endRun(ctx, id, RunCancelled, "the run was cancelled")
}

// endRun moves an active run to state and cancels its unfinished tasks
// with why.
func (s *Store) endRun(ctx context.Context, id int64, state RunState, why string) error {
	err := s.db.WriteTx(ctx, "end team run", func(tx *sql.Tx) error {
		now := s.now()
		res, err := tx.ExecContext(ctx, `UPDATE team_runs SET state = ?, finished_at = ? WHERE id = ? AND state = ?`,
			string(state), now, id, string(RunActive))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("no active run %d: %w", id, ErrNotFound)
		}
		_, err = tx.ExecContext(ctx, `UPDATE team_tasks SET state = ?, error = ?, holder = '', lease_until = 0, finished_at = ?
WHERE run = ? AND state IN ('waiting', 'ready', 'claimed')`, string(StateCancelled), why, now, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("team: end run %d as %s: %w", id, state, err)
	}
	s.signal()
	return nil
}
