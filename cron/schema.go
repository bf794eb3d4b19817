package cron

import (
	"context"

	"github.com/hermes-go/hermes/internal/sqlitedb"
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

// schema is the cron tables' place in the shared state.db
// (sqlitedb.Schema): the version goes to state_meta when the session store
// made it, else to cron_meta.
var schema = sqlitedb.Schema{Name: "cron", VersionKey: versionKey, Fallback: "cron_meta", Migrations: migrations}

// readVersion is the cron schema version (sqlitedb.Schema.Version).
func readVersion(ctx context.Context, q sqlitedb.Querier) (int, error) {
	return schema.Version(ctx, q)
}
