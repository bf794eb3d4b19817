package cron

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// ErrNotFound is returned (wrapped) for a job name the store does not have.
var ErrNotFound = errors.New("no such job")

// ErrExists is returned (wrapped) by Create for a name another job has.
var ErrExists = errors.New("a job of that name exists; pick another name, or update or remove that job")

var _ JobStore = (*Store)(nil)

// StoreOptions tune a Store. The zero value is ready to use.
type StoreOptions struct {
	// Clock is the clock for created times and next fires; nil means the
	// real clock.
	Clock clock.Clock
	// DefaultZone is the zone of jobs that name none; empty means UTC,
	// never the server's zone, so a job fires at the same hour wherever
	// hermes runs.
	DefaultZone string
}

// Store holds the cron tables of one database: state.db, or a PostgreSQL
// database several replicas share. It is safe for concurrent use by
// several processes. Writes go through the DB's write transactions,
// reads through its read pool.
type Store struct {
	db   sqldb.DB
	read *sql.DB
	now  func() time.Time
	zone string

	mu        sync.Mutex
	listeners []func()
}

// NewStore returns the job store over db, whose Open has brought the
// cron tables up to date. The store holds nothing of its own to release;
// db is closed by whoever opened it.
func NewStore(db sqldb.DB, opt StoreOptions) (*Store, error) {
	if _, err := LoadZone(opt.DefaultZone, ""); err != nil {
		return nil, fmt.Errorf("cron: default timezone: %w", err)
	}
	s := &Store{db: db, read: db.Reader(), now: clock.OrReal(opt.Clock).Now, zone: opt.DefaultZone}
	return s, nil
}

// OnChange registers f to be called after every change to the jobs made
// through this Store, so a scheduler in the same process recomputes its
// next wake-up at once. Changes by other processes are seen at the
// scheduler's next lease renewal.
func (s *Store) OnChange(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, f)
}

// changed calls the OnChange listeners.
func (s *Store) changed() {
	s.mu.Lock()
	fs := append([]func(){}, s.listeners...)
	s.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// writeTx runs fn in a retried write transaction (sqldb.DB.WriteTx).
// fn must reach the database only through tx: with SQLite the writer
// connection is the one tx holds.
func (s *Store) writeTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	return s.db.WriteTx(ctx, what, fn)
}

// locking is clause ("FOR UPDATE", "FOR SHARE") on PostgreSQL and
// nothing on SQLite, appended to a read inside a write transaction whose
// rows the transaction goes on to change. SQLite's write transaction
// holds the whole file from its start; PostgreSQL's READ COMMITTED lets
// another replica change a row between the read and the write unless
// the read locks it.
func (s *Store) locking(clause string) string {
	if s.db.Dialect() == sqldb.Postgres {
		return " " + clause
	}
	return ""
}

// text is s as a text column keeps it on both databases: PostgreSQL
// refuses NUL bytes and invalid UTF-8, which a run's output or error
// (from a model or a script) may hold, so each becomes U+FFFD.
func text(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// micros is t as stored; the zero time is 0.
func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// fromMicros is the inverse of micros.
func fromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

const jobColumns = `name, spec, source, enabled, next_run_at, last_run_at, running_since, session_id, created_at, updated_at`

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanJob reads one row of jobColumns.
func scanJob(r scanner) (Job, error) {
	var (
		j                                 Job
		spec                              string
		enabled                           int
		next, last, running, created, upd int64
	)
	if err := r.Scan(&j.Name, &spec, &j.Source, &enabled, &next, &last, &running, &j.SessionID, &created, &upd); err != nil {
		return Job{}, err
	}
	if err := json.Unmarshal([]byte(spec), &j.Spec); err != nil {
		return Job{}, fmt.Errorf("job %q: stored spec: %w", j.Name, err)
	}
	j.Enabled = enabled != 0
	j.NextRunAt, j.LastRunAt, j.RunningSince = fromMicros(next), fromMicros(last), fromMicros(running)
	j.CreatedAt, j.UpdatedAt = fromMicros(created), fromMicros(upd)
	return j, nil
}

// Get returns the named job, or an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, name string) (Job, error) {
	j, err := scanJob(s.read.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM cron_jobs WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("cron: job %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("cron: get job %q: %w", name, err)
	}
	return j, nil
}

// List returns every job by name.
func (s *Store) List(ctx context.Context) ([]Job, error) {
	return s.query(ctx, `SELECT `+jobColumns+` FROM cron_jobs ORDER BY name`)
}

// Due returns the enabled jobs whose next fire is at or before now.
func (s *Store) Due(ctx context.Context, now time.Time) ([]Job, error) {
	return s.query(ctx, `SELECT `+jobColumns+` FROM cron_jobs
WHERE enabled = 1 AND next_run_at > 0 AND next_run_at <= ? ORDER BY next_run_at, name`, micros(now))
}

// Earliest is the soonest next fire of any enabled job; false when none.
func (s *Store) Earliest(ctx context.Context) (time.Time, bool, error) {
	var us sql.NullInt64
	err := s.read.QueryRowContext(ctx,
		`SELECT min(next_run_at) FROM cron_jobs WHERE enabled = 1 AND next_run_at > 0`).Scan(&us)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("cron: earliest fire: %w", err)
	}
	return fromMicros(us.Int64), us.Valid, nil
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]Job, error) {
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("cron: list jobs: %w", err)
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("cron: list jobs: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cron: list jobs: %w", err)
	}
	return out, nil
}
