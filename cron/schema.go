package cron

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// versionKey is the cron schema's entry in state_meta or cron_meta.
const versionKey = "cron_schema_version"

// migrations[i] brings the cron tables from version i to i+1. Entries are
// append-only. Times are INTEGER microseconds since the Unix epoch (0:
// none), as in the session and fact tables.
var migrations = []string{
	// 1: jobs, their runs and the scheduler lease.
	`
CREATE TABLE cron_jobs (
	name          TEXT PRIMARY KEY,
	spec          TEXT NOT NULL,
	declared      TEXT NOT NULL DEFAULT '',
	source        TEXT NOT NULL,
	enabled       INTEGER NOT NULL DEFAULT 1,
	next_run_at   INTEGER NOT NULL DEFAULT 0,
	last_run_at   INTEGER NOT NULL DEFAULT 0,
	running_since INTEGER NOT NULL DEFAULT 0,
	session_id    TEXT NOT NULL DEFAULT '',
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL
);
CREATE INDEX cron_jobs_next ON cron_jobs(enabled, next_run_at);

CREATE TABLE cron_runs (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	job           TEXT NOT NULL,
	scheduled_for INTEGER NOT NULL,
	started_at    INTEGER NOT NULL DEFAULT 0,
	ended_at      INTEGER NOT NULL DEFAULT 0,
	status        TEXT NOT NULL,
	session_id    TEXT NOT NULL DEFAULT '',
	output        TEXT NOT NULL DEFAULT '',
	error         TEXT NOT NULL DEFAULT '',
	deliveries    TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX cron_runs_job ON cron_runs(job, id DESC);

CREATE TABLE cron_lease (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	holder     TEXT NOT NULL,
	expires_at INTEGER NOT NULL
);
`,
}

// migrate brings the cron tables to len(migrations), the way the fact
// store does (memory/facts/schema.go): an unlocked version read first, then
// a second read inside BEGIN IMMEDIATE so concurrent openers migrate once.
// The version goes to state_meta when the session store made it, else to
// cron_meta; the larger of the two is read.
func (s *Store) migrate(ctx context.Context) error {
	if v, err := readVersion(ctx, s.db); err == nil && v == len(migrations) {
		return nil
	}
	return s.writeTx(ctx, "migrate cron schema", func(tx *sql.Tx) error {
		v, err := readVersion(ctx, tx)
		if err != nil {
			return err
		}
		if v > len(migrations) {
			return fmt.Errorf("cron schema version %d is newer than this program knows (%d): upgrade hermes", v, len(migrations))
		}
		for ; v < len(migrations); v++ {
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrate cron schema to version %d: %w", v+1, err)
			}
		}
		return writeVersion(ctx, tx, v)
	})
}

// querier is what readVersion needs of a *sql.DB or *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readVersion is the cron schema version in state_meta or cron_meta.
func readVersion(ctx context.Context, q querier) (int, error) {
	v := 0
	for _, table := range []string{"state_meta", "cron_meta"} {
		var n int
		if err := q.QueryRowContext(ctx,
			`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil {
			return 0, fmt.Errorf("look for table %s: %w", table, err)
		}
		if n == 0 {
			continue
		}
		err := q.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM `+table+` WHERE key = ?`, versionKey).Scan(&n)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return 0, fmt.Errorf("read %s.%s: %w", table, versionKey, err)
		default:
			v = max(v, n)
		}
	}
	return v, nil
}

// writeVersion records v in state_meta if it exists, else in cron_meta
// (never creating state_meta, whose owner creates it without IF NOT EXISTS).
func writeVersion(ctx context.Context, tx *sql.Tx, v int) error {
	table := "state_meta"
	var n int
	if err := tx.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'state_meta'`).Scan(&n); err != nil {
		return fmt.Errorf("look for table state_meta: %w", err)
	}
	if n == 0 {
		table = "cron_meta"
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS cron_meta (key TEXT PRIMARY KEY, value TEXT)`); err != nil {
			return fmt.Errorf("create cron_meta: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (key, value) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, versionKey, fmt.Sprint(v)); err != nil {
		return fmt.Errorf("write %s.%s: %w", table, versionKey, err)
	}
	return nil
}
