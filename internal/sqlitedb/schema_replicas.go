package sqlitedb

// replicasSchema is the roll of serving processes (package replica): the
// version goes to state_meta, or to replicas_meta in a file where it was
// created before the session tables.
var replicasSchema = schema{name: "replicas", versionKey: "replicas_schema_version", fallback: "replicas_meta", migrations: replicasMigrations}

// replicasMigrations[i] brings the roll from version i to i+1. Entries
// are append-only. Times are INTEGER microseconds since the Unix epoch.
var replicasMigrations = []string{
	// 1: one row per hermes serve: who it is, which release and which
	// configuration it runs, when it started and was last seen.
	`
CREATE TABLE replicas (
	holder      TEXT PRIMARY KEY,
	host        TEXT NOT NULL DEFAULT '',
	pid         INTEGER NOT NULL DEFAULT 0,
	version     TEXT NOT NULL DEFAULT '',
	config_hash TEXT NOT NULL DEFAULT '',
	started_at  INTEGER NOT NULL,
	seen_at     INTEGER NOT NULL
);
`,
	// 2: the URL each replica's API is reached at by the others, to
	// pass on the requests about a run it holds ('' without the API).
	`
ALTER TABLE replicas ADD COLUMN api_url TEXT NOT NULL DEFAULT '';
`,
}
