package team

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

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
	ID    int64
	Team  string
	Goal  string
	State RunState
	// Spec is the team's definition as the run started (JSON, as the
	// runner wrote it), so a run resumes as it began even when the
	// configuration changed since.
	Spec string
	// Holder names the process that runs the run; a resume takes it
	// over only once that process is gone, or its lease ran out.
	Holder string
	// LeaseUntil is when the holder's lease on a leased run runs out
	// unless renewed (see RenewRun); zero for a run that is not leased,
	// which only a resume by hand goes on with. A run that ended is not
	// leased.
	LeaseUntil time.Time
	// SessionID is the coordinator's session.
	SessionID string
	// Answer is the coordinator's final reply; Error why the run failed.
	Answer string
	Error  string
	// Tokens are the coordinator's; each task counts its own.
	Tokens int
	// DeliveredAt is when the answer was delivered, and Delivery to
	// which target; zero while it was not.
	DeliveredAt time.Time
	Delivery    string
	CreatedAt   time.Time
	FinishedAt  time.Time
}

// Start is a run to begin.
type Start struct {
	Team, Goal string
	// Spec and Holder are kept as Run's.
	Spec, Holder string
	// Lease, when positive, leases the run to Holder for that long: the
	// run belongs to no terminal, and once its holder stops renewing
	// the lease another process may take it over (Orphans lists it).
	Lease time.Duration
}

// Outcome is how a run ended.
type Outcome struct {
	// State is RunDone or RunFailed.
	State  RunState
	Answer string
	Error  string
	Tokens int
}

const runColumns = `id, team, goal, state, spec, holder, lease_until, session_id, answer, error, tokens, delivered_at, delivery, created_at, finished_at`

func scanRun(r scanner) (Run, error) {
	var run Run
	var state string
	var lease, delivered, created, finished int64
	err := r.Scan(&run.ID, &run.Team, &run.Goal, &state, &run.Spec, &run.Holder, &lease, &run.SessionID, &run.Answer, &run.Error,
		&run.Tokens, &delivered, &run.Delivery, &created, &finished)
	run.State, run.LeaseUntil, run.DeliveredAt = RunState(state), fromMicros(lease), fromMicros(delivered)
	run.CreatedAt, run.FinishedAt = fromMicros(created), fromMicros(finished)
	return run, err
}

// CreateRun starts a run of team toward goal.
func (s *Store) CreateRun(ctx context.Context, team, goal string) (Run, error) {
	return s.StartRun(ctx, Start{Team: team, Goal: goal})
}

// StartRun starts a run as st describes.
func (s *Store) StartRun(ctx context.Context, st Start) (Run, error) {
	if st.Team == "" {
		return Run{}, errors.New("team: create run: team is empty; name the team the run belongs to")
	}
	if st.Lease < 0 {
		return Run{}, fmt.Errorf("team: create run: lease %v is not accepted; use a positive duration, or zero for none", st.Lease)
	}
	now := s.now()
	r := Run{Team: s.text(st.Team), Goal: s.text(st.Goal), Spec: s.text(st.Spec), Holder: s.text(st.Holder), State: RunActive, CreatedAt: fromMicros(now)}
	var lease int64
	if st.Lease > 0 {
		lease = now + st.Lease.Microseconds()
		r.LeaseUntil = fromMicros(lease)
	}
	err := s.db.WriteTx(ctx, "create team run", func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO team_runs (team, goal, state, spec, holder, lease_until, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			r.Team, r.Goal, string(RunActive), r.Spec, r.Holder, lease, now).Scan(&r.ID)
	})
	if err != nil {
		return Run{}, fmt.Errorf("team: create run: %w", err)
	}
	return r, nil
}

// GetRun returns run id, or an error wrapping ErrNotFound.
func (s *Store) GetRun(ctx context.Context, id int64) (Run, error) {
	r, err := scanRun(s.read.QueryRowContext(ctx, `SELECT `+runColumns+` FROM team_runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("team: run %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Run{}, fmt.Errorf("team: get run %d: %w", id, err)
	}
	return r, nil
}

// Runs returns the newest runs first, at most limit of them.
func (s *Store) Runs(ctx context.Context, limit int) ([]Run, error) {
	return s.queryRuns(ctx, "list runs", `SELECT `+runColumns+` FROM team_runs ORDER BY created_at DESC, id DESC LIMIT ?`, limit)
}

// queryRuns reads the runs query selects (runColumns); what names the
// read in errors.
func (s *Store) queryRuns(ctx context.Context, what, query string, args ...any) ([]Run, error) {
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("team: %s: %w", what, err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("team: %s: %w", what, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("team: %s: %w", what, err)
	}
	return out, nil
}

// SetRunSession records the coordinator's session of run id.
func (s *Store) SetRunSession(ctx context.Context, id int64, sessionID string) error {
	return s.updateRun(ctx, id, "set team run session", `UPDATE team_runs SET session_id = ? WHERE id = ?`, nil, s.text(sessionID), id)
}

// MarkDelivered records that run id's answer went to target.
func (s *Store) MarkDelivered(ctx context.Context, id int64, target string) error {
	return s.updateRun(ctx, id, "mark team run delivered", `UPDATE team_runs SET delivered_at = ?, delivery = ? WHERE id = ?`, nil, s.now(), s.text(target), id)
}

// updateRun runs one UPDATE of a run; check, when set, judges the rows it
// changed.
func (s *Store) updateRun(ctx context.Context, id int64, what, query string, check func(int64) error, args ...any) error {
	err := s.db.WriteTx(ctx, what, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		if check != nil {
			return check(n)
		}
		if n == 0 {
			return fmt.Errorf("run %d: %w", id, ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("team: %s: %w", what, err)
	}
	return nil
}

// FinishRun ends an active run as done or failed: the coordinator has
// its answer, or gave up. Tasks of it not finished yet are cancelled, as
// by CancelRun, since nothing will read what they would produce; finished
// ones stay as they are, to be inspected.
func (s *Store) FinishRun(ctx context.Context, id int64, state RunState) error {
	return s.EndRun(ctx, id, Outcome{State: state})
}

// EndRun is FinishRun that also keeps the coordinator's answer or error
// and tokens, in the same transaction.
func (s *Store) EndRun(ctx context.Context, id int64, o Outcome) error {
	if o.State != RunDone && o.State != RunFailed {
		return fmt.Errorf("team: finish run %d: state %q is not accepted; use done or failed (CancelRun cancels)", id, o.State)
	}
	return s.endRun(ctx, id, o, "the run finished without it")
}

// CancelRun cancels an active run and every task of it not finished yet:
// waiting and ready tasks are never claimed, and a worker holding a
// claimed one loses its lease at its next renewal.
func (s *Store) CancelRun(ctx context.Context, id int64) error {
	return s.endRun(ctx, id, Outcome{State: RunCancelled}, "the run was cancelled")
}

// endRun moves an active run to o's state and cancels its unfinished
// tasks with why.
func (s *Store) endRun(ctx context.Context, id int64, o Outcome, why string) error {
	err := s.db.WriteTx(ctx, "end team run", func(tx *sql.Tx) error {
		now := s.now()
		res, err := tx.ExecContext(ctx, `UPDATE team_runs SET state = ?, finished_at = ?, answer = ?, error = ?, tokens = tokens + ?, lease_until = 0 WHERE id = ? AND state = ?`,
			string(o.State), now, s.text(o.Answer), s.text(o.Error), o.Tokens, id, string(RunActive))
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
		return fmt.Errorf("team: end run %d as %s: %w", id, o.State, err)
	}
	s.signal()
	return nil
}
