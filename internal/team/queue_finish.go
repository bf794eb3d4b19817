package team

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/safety/redact"
)

// Result is what a worker hands back for a task it completed.
type Result struct {
	// Summary is a short account of what the task came to.
	Summary string
	// Artifacts are what the task produced, for the coordinator and for
	// the tasks that take this one as an input.
	Artifacts []Artifact
	// SessionID is the session of the turn that did the task, and
	// Tokens what it used, kept with the task for team status.
	SessionID string
	Tokens    int
}

// held checks, inside tx, that task id is claimed by holder, and locks
// the task until tx ends, so a lease running out meanwhile cannot hand
// it to another worker between the check and the change.
func (s *Store) held(ctx context.Context, tx *sql.Tx, id int64, holder string) (Task, error) {
	t, err := getTask(ctx, tx, id, s.lock.update)
	if err != nil {
		return Task{}, err
	}
	if t.State != StateClaimed || t.Holder != holder {
		return Task{}, fmt.Errorf("task %d is %s (holder %q), not claimed by %q: %w", id, t.State, t.Holder, holder, ErrLeaseLost)
	}
	return t, nil
}

// Renew extends holder's lease on task id to lease from now. It fails
// with ErrLeaseLost when the claim is no longer holder's: the worker
// should stop, since another one may be running the task.
func (s *Store) Renew(ctx context.Context, id int64, holder string, lease time.Duration) error {
	holder = s.text(holder)
	err := s.db.WriteTx(ctx, "renew team task lease", func(tx *sql.Tx) error {
		if _, err := s.held(ctx, tx, id, holder); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE team_tasks SET lease_until = ? WHERE id = ?`, s.now()+lease.Microseconds(), id)
		return err
	})
	if err != nil {
		return fmt.Errorf("team: renew lease: %w", err)
	}
	return nil
}

// Complete marks task id done with the result holder's worker produced,
// stores its artifacts, and makes ready the tasks whose last input it
// was, all in one transaction: a crash leaves either the task claimed
// (to be run again once its lease ends) or done with all its artifacts.
func (s *Store) Complete(ctx context.Context, id int64, holder string, r Result) error {
	holder, r.Summary, r.SessionID = s.text(holder), s.text(r.Summary), s.text(r.SessionID)
	r.Artifacts = slices.Clone(r.Artifacts)
	for i := range r.Artifacts {
		r.Artifacts[i].Name, r.Artifacts[i].Content = s.text(r.Artifacts[i].Name), s.text(r.Artifacts[i].Content)
		if err := r.Artifacts[i].check(); err != nil {
			return fmt.Errorf("team: complete task %d: artifact %d: %w", id, i, err)
		}
		for _, b := range r.Artifacts[:i] {
			if b.Name == r.Artifacts[i].Name {
				return fmt.Errorf("team: complete task %d: artifact name %q is given twice; give each artifact its own name", id, b.Name)
			}
		}
	}
	err := s.db.WriteTx(ctx, "complete team task", func(tx *sql.Tx) error {
		if _, err := s.held(ctx, tx, id, holder); err != nil {
			return err
		}
		now := s.now()
		for _, a := range r.Artifacts {
			if _, err := tx.ExecContext(ctx, `INSERT INTO team_artifacts (task, name, kind, content, path, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				id, a.Name, string(a.Kind), a.Content, a.Path, a.Size, now); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE team_tasks SET state = 'done', holder = '', lease_until = 0, summary = ?, error = '', session_id = ?, tokens = ?, finished_at = ?
WHERE id = ?`, r.Summary, r.SessionID, r.Tokens, now, id); err != nil {
			return err
		}
		return s.readyDependants(ctx, tx, id, now)
	})
	if err != nil {
		return fmt.Errorf("team: complete task %d: %w", id, err)
	}
	s.signal()
	return nil
}

// Fail ends holder's attempt at task id with reason. The task is ready
// again while it has attempts left; after the last one it is failed, and
// so is every task waiting on it. The task's new state is returned. The
// reason is kept with secrets redacted: it is often an error that quotes
// a request, and the coordinator's model reads it.
func (s *Store) Fail(ctx context.Context, id int64, holder, reason string) (State, error) {
	var state State
	holder, reason = s.text(holder), s.text(reason)
	err := s.db.WriteTx(ctx, "fail team task", func(tx *sql.Tx) error {
		t, err := s.held(ctx, tx, id, holder)
		if err != nil {
			return err
		}
		why := fmt.Sprintf("attempt %d of %d: %s", t.Attempts, t.MaxAttempts, redact.Secrets(reason))
		if err := retryOrFail(ctx, tx, id, t.Attempts, t.MaxAttempts, why, s.now()); err != nil {
			return err
		}
		state = StateReady
		if t.Attempts >= t.MaxAttempts {
			state = StateFailed
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("team: fail task %d: %w", id, err)
	}
	s.signal()
	return state, nil
}
