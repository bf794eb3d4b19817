package cron

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Run statuses. Every fire leaves exactly one row, so a job that did not
// run says why instead of failing silently.
const (
	StatusRunning = "running"
	StatusOK      = "ok"
	StatusError   = "error"
	// StatusMissed: hermes was not running (or asleep) at the fire time
	// and the catch-up policy did not run it.
	StatusMissed = "missed"
	// StatusSkipped: the previous run of the job was still going.
	StatusSkipped = "skipped"
	// StatusSilent: the run finished and chose to deliver nothing.
	StatusSilent = "silent"
)

// MaxOutput bounds the bytes of output kept per run: enough for a whole
// report, so a message cut to a chat platform's limit can be read whole
// with "hermes cron show". Longer output is cut there, before any
// character the cut would split, and ends in "…".
const MaxOutput = 64 << 10

// Delivery is the outcome of sending a run's result to one target.
type Delivery struct {
	Target string `json:"target"`
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
}

// Run is one row of a job's history.
type Run struct {
	ID           int64
	Job          string
	ScheduledFor time.Time
	StartedAt    time.Time
	EndedAt      time.Time
	Status       string
	SessionID    string
	Output       string
	Error        string
	Deliveries   []Delivery
}

// RunResult is what a Runner reports for one run.
type RunResult struct {
	// Status is StatusOK, StatusError or StatusSilent; empty means
	// StatusError when Err is set and StatusOK otherwise.
	Status     string
	SessionID  string
	Output     string
	Err        error
	Deliveries []Delivery
}

// StartRun records that a run of job for scheduledFor begins now and
// marks the job running. The scheduler calls it (inside its claim); it is
// exported for running a job by hand ("hermes cron run NAME").
func (s *Store) StartRun(ctx context.Context, job string, scheduledFor time.Time) (int64, error) {
	var id int64
	err := s.writeTx(ctx, "start cron run", func(tx *sql.Tx) error {
		var err error
		id, err = startRun(ctx, tx, job, scheduledFor, s.now())
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("cron: start run of %q: %w", job, err)
	}
	return id, nil
}

// startRun adds the run's row and marks its job running. The new id
// comes back through RETURNING, which both databases run (PostgreSQL's
// driver gives no LastInsertId).
func startRun(ctx context.Context, tx *sql.Tx, job string, scheduledFor, now time.Time) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO cron_runs (job, scheduled_for, started_at, status) VALUES (?, ?, ?, ?) RETURNING id`,
		text(job), micros(scheduledFor), micros(now), StatusRunning).Scan(&id)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE cron_jobs SET running_since = ?, last_run_at = ? WHERE name = ?`,
		micros(now), micros(now), text(job)); err != nil {
		return 0, err
	}
	return id, nil
}

// recordRun stores a run that did not start (missed or skipped).
func recordRun(ctx context.Context, tx *sql.Tx, job string, scheduledFor, now time.Time, status, why string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO cron_runs (job, scheduled_for, ended_at, status, error) VALUES (?, ?, ?, ?, ?)`,
		text(job), micros(scheduledFor), micros(now), status, text(why))
	return err
}

// FinishRun records the result of run id, clears the job's running mark
// and, for a "continue" job, remembers the conversation to carry on.
func (s *Store) FinishRun(ctx context.Context, id int64, r RunResult) error {
	status := r.Status
	if status == "" {
		status = StatusOK
		if r.Err != nil {
			status = StatusError
		}
	}
	var msg string
	if r.Err != nil {
		msg = r.Err.Error()
	}
	// A delivery's error is kept as the other text is, so history reads
	// the same on both databases.
	kept := make([]Delivery, len(r.Deliveries))
	for i, d := range r.Deliveries {
		kept[i] = Delivery{Target: text(d.Target), OK: d.OK, Error: text(d.Error)}
	}
	deliveries, err := json.Marshal(kept)
	if err != nil {
		return fmt.Errorf("cron: finish run %d: %w", id, err)
	}
	if r.Deliveries == nil {
		deliveries = []byte("[]")
	}
	out := r.Output
	if len(out) > MaxOutput {
		cut := MaxOutput
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut-- // not inside a character
		}
		out = out[:cut] + "…"
	}
	now := s.now()
	sessionID := text(r.SessionID)
	err = s.writeTx(ctx, "finish cron run", func(tx *sql.Tx) error {
		var job string
		if err := tx.QueryRowContext(ctx, `SELECT job FROM cron_runs WHERE id = ?`, id).Scan(&job); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE cron_runs SET ended_at = ?, status = ?, session_id = ?, output = ?,
error = ?, deliveries = ? WHERE id = ?`, micros(now), status, sessionID, text(out), text(msg), string(deliveries), id); err != nil {
			return err
		}
		keep, err := s.continues(ctx, tx, job)
		if err != nil {
			return err
		}
		if !keep || sessionID == "" {
			_, err = tx.ExecContext(ctx, `UPDATE cron_jobs SET running_since = 0 WHERE name = ?`, job)
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE cron_jobs SET running_since = 0, session_id = ? WHERE name = ?`, sessionID, job)
		return err
	})
	if err != nil {
		return fmt.Errorf("cron: finish run %d: %w", id, err)
	}
	return nil
}

// continues reports whether job carries its conversation on from run to
// run (session_type "continue"), locking its row until tx ends. The spec
// is read here rather than in SQL, where each database spells JSON its
// own way and PostgreSQL's jsonb refuses the \u0000 a prompt may hold.
// A job removed since the run started does not continue.
func (s *Store) continues(ctx context.Context, tx *sql.Tx, job string) (bool, error) {
	var spec string
	err := tx.QueryRowContext(ctx, `SELECT spec FROM cron_jobs WHERE name = ?`+s.locking("FOR UPDATE"), job).Scan(&spec)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	var sp struct {
		SessionType string `json:"session_type"`
	}
	if err := json.Unmarshal([]byte(spec), &sp); err != nil {
		return false, fmt.Errorf("job %q: stored spec: %w", job, err)
	}
	return sp.SessionType == SessionContinue, nil
}

// History returns the newest runs of job, newest first; limit <= 0
// means 20.
func (s *Store) History(ctx context.Context, job string, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = 20
	}
	rows, err := s.read.QueryContext(ctx, `SELECT id, job, scheduled_for, started_at, ended_at, status, session_id,
output, error, deliveries FROM cron_runs WHERE job = ? ORDER BY id DESC LIMIT ?`, job, limit)
	if err != nil {
		return nil, fmt.Errorf("cron: history of %q: %w", job, err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var (
			r                 Run
			sched, start, end int64
			deliveries        string
		)
		if err := rows.Scan(&r.ID, &r.Job, &sched, &start, &end, &r.Status, &r.SessionID, &r.Output, &r.Error, &deliveries); err != nil {
			return nil, fmt.Errorf("cron: history of %q: %w", job, err)
		}
		r.ScheduledFor, r.StartedAt, r.EndedAt = fromMicros(sched), fromMicros(start), fromMicros(end)
		if err := json.Unmarshal([]byte(deliveries), &r.Deliveries); err != nil {
			return nil, fmt.Errorf("cron: history of %q: run %d deliveries: %w", job, r.ID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cron: history of %q: %w", job, err)
	}
	return out, nil
}
