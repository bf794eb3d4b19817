package pgdb

// replicasSchema is the roll of serving processes (package replica).
func replicasSchema() schema {
	return schema{name: "replicas", migrations: []string{
		`CREATE TABLE replicas (
	holder      text PRIMARY KEY,
	host        text NOT NULL DEFAULT '',
	pid         bigint NOT NULL DEFAULT 0,
	version     text NOT NULL DEFAULT '',
	config_hash text NOT NULL DEFAULT '',
	started_at  bigint NOT NULL,
	seen_at     bigint NOT NULL
);`,
		// 2: the URL each replica's API is reached at by the others.
		`ALTER TABLE replicas ADD COLUMN api_url text NOT NULL DEFAULT '';`,
	}}
}
