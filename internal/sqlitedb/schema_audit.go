package sqlitedb

// auditSchema is the audit log's table (audit): the version goes to
// state_meta, or to audit_meta in a file where it was created before the
// session tables.
var auditSchema = schema{name: "audit", versionKey: "audit_schema_version", fallback: "audit_meta", migrations: auditMigrations}

// auditMigrations[i] brings the audit log from version i to i+1. Entries
// are append-only. Times are INTEGER microseconds since the Unix epoch.
var auditMigrations = []string{
	// 1: one row per tool call, run or refused: whose it was (session,
	// user, tenant, source, agent), the tool and its redacted arguments,
	// how it ended, and how its command was approved and by whom.
	`
CREATE TABLE audit_log (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	at          INTEGER NOT NULL,
	session_id  TEXT NOT NULL DEFAULT '',
	user_id     TEXT NOT NULL DEFAULT '',
	tenant      TEXT NOT NULL DEFAULT '',
	source      TEXT NOT NULL DEFAULT '',
	agent       TEXT NOT NULL DEFAULT '',
	tool        TEXT NOT NULL,
	args        TEXT NOT NULL DEFAULT '',
	status      TEXT NOT NULL DEFAULT '',
	error_code  TEXT NOT NULL DEFAULT '',
	approval    TEXT NOT NULL DEFAULT '',
	approved_by TEXT NOT NULL DEFAULT '',
	reason      TEXT NOT NULL DEFAULT '',
	duration_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX audit_log_at ON audit_log(at);
CREATE INDEX audit_log_user ON audit_log(user_id, at);
CREATE INDEX audit_log_tenant ON audit_log(tenant, at);
CREATE INDEX audit_log_session ON audit_log(session_id, id);
`,
}
