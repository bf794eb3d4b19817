package sqlitedb

// cronSchema is the cron jobs' tables (cron): the version goes to
// state_meta, or to cron_meta in a file where the cron tables were
// created before the session tables.
var cronSchema = schema{name: "cron", versionKey: "cron_schema_version", fallback: "cron_meta", migrations: cronMigrations}

// cronMigrations[i] brings the cron tables from version i to i+1.
// Entries are append-only. Times are INTEGER microseconds since the Unix
// epoch (0: none), as in the session and fact tables.
var cronMigrations = []string{
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
