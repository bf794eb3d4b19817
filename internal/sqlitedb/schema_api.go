package sqlitedb

// apiSchema is the API's table of requests sent with an Idempotency-Key
// (api/apistore): the version goes to state_meta, or to api_meta in a
// file where it was created before the session tables.
var apiSchema = schema{name: "api", versionKey: "api_schema_version", fallback: "api_meta", migrations: apiMigrations}

// apiMigrations[i] brings the API's tables from version i to i+1.
// Entries are append-only. Times are INTEGER microseconds since the Unix
// epoch.
var apiMigrations = []string{
	// 1: one row per request sent with an Idempotency-Key, by caller:
	// who runs it and until when (a lease, so a replica that died is
	// taken over), the session and the message it started after (so the
	// dead attempt's messages are rewound), and once done, the answer a
	// retry gets back.
	`
CREATE TABLE api_requests (
	caller      TEXT NOT NULL,
	key         TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	holder      TEXT NOT NULL,
	lease_until INTEGER NOT NULL,
	session_id  TEXT NOT NULL DEFAULT '',
	base_id     INTEGER NOT NULL DEFAULT -1,
	done        INTEGER NOT NULL DEFAULT 0,
	status      INTEGER NOT NULL DEFAULT 0,
	body        BLOB,
	created_at  INTEGER NOT NULL,
	PRIMARY KEY (caller, key)
);
CREATE INDEX api_requests_created ON api_requests(created_at);
`,
}
