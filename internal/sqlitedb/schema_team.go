package sqlitedb

// teamSchema is the team task queue's tables (team): the version goes to
// state_meta, or to team_meta in a file where the team tables were
// created before the session tables.
var teamSchema = schema{name: "team", versionKey: "team_schema_version", fallback: "team_meta", migrations: teamMigrations}

// teamMigrations[i] brings the team tables from version i to i+1.
// Entries are append-only. Times are INTEGER microseconds since the Unix
// epoch (0: none), as in the other stores' tables. Nothing is deleted
// when a run ends: every run, task, input and artifact is kept so a run
// can be inspected afterwards and resumed after a crash.
var teamMigrations = []string{
	// 1: runs, their tasks, which earlier tasks each task takes as
	// inputs, and the artifacts finished tasks left.
	`
CREATE TABLE team_runs (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	team        TEXT NOT NULL,
	goal        TEXT NOT NULL,
	state       TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	finished_at INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE team_tasks (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	run          INTEGER NOT NULL REFERENCES team_runs(id),
	role         TEXT NOT NULL,
	description  TEXT NOT NULL,
	inputs       TEXT NOT NULL DEFAULT '[]',
	state        TEXT NOT NULL,
	attempts     INTEGER NOT NULL DEFAULT 0,
	max_attempts INTEGER NOT NULL,
	holder       TEXT NOT NULL DEFAULT '',
	lease_until  INTEGER NOT NULL DEFAULT 0,
	summary      TEXT NOT NULL DEFAULT '',
	error        TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL,
	ready_at     INTEGER NOT NULL DEFAULT 0,
	claimed_at   INTEGER NOT NULL DEFAULT 0,
	finished_at  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX team_tasks_ready ON team_tasks(state, role, ready_at, id);
CREATE INDEX team_tasks_run ON team_tasks(run, id);

CREATE TABLE team_task_inputs (
	task  INTEGER NOT NULL REFERENCES team_tasks(id),
	input INTEGER NOT NULL REFERENCES team_tasks(id),
	PRIMARY KEY (task, input)
);
CREATE INDEX team_task_inputs_input ON team_task_inputs(input, task);

CREATE TABLE team_artifacts (
	task       INTEGER NOT NULL REFERENCES team_tasks(id),
	name       TEXT NOT NULL,
	kind       TEXT NOT NULL,
	content    TEXT NOT NULL DEFAULT '',
	path       TEXT NOT NULL DEFAULT '',
	size       INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (task, name)
);
`,
	// 2: what a team runner keeps beside the queue: the run's team
	// definition as it started (spec, JSON), the process holding it, the
	// coordinator's session, its answer or error, the tokens it used and
	// when the answer was delivered; and per task the session of the
	// turn that did it and the tokens that turn used.
	`
ALTER TABLE team_runs ADD COLUMN spec TEXT NOT NULL DEFAULT '';
ALTER TABLE team_runs ADD COLUMN holder TEXT NOT NULL DEFAULT '';
ALTER TABLE team_runs ADD COLUMN session_id TEXT NOT NULL DEFAULT '';
ALTER TABLE team_runs ADD COLUMN answer TEXT NOT NULL DEFAULT '';
ALTER TABLE team_runs ADD COLUMN error TEXT NOT NULL DEFAULT '';
ALTER TABLE team_runs ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE team_runs ADD COLUMN delivered_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE team_runs ADD COLUMN delivery TEXT NOT NULL DEFAULT '';
CREATE INDEX team_runs_created ON team_runs(created_at, id);
ALTER TABLE team_tasks ADD COLUMN session_id TEXT NOT NULL DEFAULT '';
ALTER TABLE team_tasks ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
`,
	// 3: the lease of a run no terminal started (a scheduled job's): its
	// holder renews it, and once it runs out another process takes the
	// run over (0: not leased).
	`
ALTER TABLE team_runs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
`,
}
