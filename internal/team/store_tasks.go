package team

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// State is where a task is. A task is posted waiting (or ready when it
// has no inputs, or they are all done), becomes ready when its last input
// is done, is claimed by a worker of its role and ends done, failed or
// cancelled. A failed claim goes back to ready until its attempts are
// used up.
type State string

// The states of a task.
const (
	StateWaiting   State = "waiting"
	StateReady     State = "ready"
	StateClaimed   State = "claimed"
	StateDone      State = "done"
	StateFailed    State = "failed"
	StateCancelled State = "cancelled"
)

// Finished reports whether the task will not change state again.
func (s State) Finished() bool {
	return s == StateDone || s == StateFailed || s == StateCancelled
}

// Task is one piece of a run's work, for one role.
type Task struct {
	ID          int64
	Run         int64
	Role        string
	Description string
	// Inputs are the ids of the earlier tasks of the run whose artifacts
	// this one takes.
	Inputs      []int64
	State       State
	Attempts    int
	MaxAttempts int
	// Holder and LeaseUntil name the claim that holds a claimed task.
	Holder     string
	LeaseUntil time.Time
	// Summary is what the worker said the task came to; Error why the
	// last attempt, or the task, failed.
	Summary string
	Error   string
	// SessionID is the session of the turn that did the task, and
	// Tokens what that turn used; empty and zero until it is done.
	SessionID  string
	Tokens     int
	CreatedAt  time.Time
	ReadyAt    time.Time
	ClaimedAt  time.Time
	FinishedAt time.Time
}

const taskColumns = `id, run, role, description, inputs, state, attempts, max_attempts, holder, lease_until, summary, error, session_id, tokens, created_at, ready_at, claimed_at, finished_at`

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanTask(r scanner) (Task, error) {
	var (
		t                                   Task
		inputs, state                       string
		lease, created, ready, claimed, fin int64
	)
	if err := r.Scan(&t.ID, &t.Run, &t.Role, &t.Description, &inputs, &state, &t.Attempts, &t.MaxAttempts,
		&t.Holder, &lease, &t.Summary, &t.Error, &t.SessionID, &t.Tokens, &created, &ready, &claimed, &fin); err != nil {
		return Task{}, err
	}
	if err := json.Unmarshal([]byte(inputs), &t.Inputs); err != nil {
		return Task{}, fmt.Errorf("task %d: stored inputs: %w", t.ID, err)
	}
	t.State = State(state)
	t.LeaseUntil, t.CreatedAt, t.ReadyAt = fromMicros(lease), fromMicros(created), fromMicros(ready)
	t.ClaimedAt, t.FinishedAt = fromMicros(claimed), fromMicros(fin)
	return t, nil
}

// queryRow is what getTask needs of a *sql.DB or *sql.Tx.
type queryRow interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// getTask reads task id; lock, when not empty, is the clause that locks
// its row (locks).
func getTask(ctx context.Context, q queryRow, id int64, lock string) (Task, error) {
	t, err := scanTask(q.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM team_tasks WHERE id = ?`+lock, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fmt.Errorf("team: task %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Task{}, fmt.Errorf("team: get task %d: %w", id, err)
	}
	return t, nil
}

// Task returns task id, or an error wrapping ErrNotFound.
func (s *Store) Task(ctx context.Context, id int64) (Task, error) {
	return getTask(ctx, s.read, id, "")
}

// Queued counts the tasks waiting for their inputs or ready for a
// worker, across runs: the depth of the queue.
func (s *Store) Queued(ctx context.Context) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM team_tasks WHERE state IN (?, ?)`, StateWaiting, StateReady).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("team: counting queued tasks: %w", err)
	}
	return n, nil
}

// Tasks returns every task of run, oldest first.
func (s *Store) Tasks(ctx context.Context, run int64) ([]Task, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+taskColumns+` FROM team_tasks WHERE run = ? ORDER BY id`, run)
	if err != nil {
		return nil, fmt.Errorf("team: tasks of run %d: %w", run, err)
	}
	defer rows.Close()
	var out []Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("team: tasks of run %d: %w", run, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("team: tasks of run %d: %w", run, err)
	}
	return out, nil
}
