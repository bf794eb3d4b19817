package sqlitedb

// gatewaySchema is the chat gateway's tables (gateway/gwstore): the
// version goes to state_meta, or to gateway_meta in a file where the
// gateway's tables were created before the session tables.
var gatewaySchema = schema{name: "gateway", versionKey: "gateway_schema_version", fallback: "gateway_meta", migrations: gatewayMigrations}

// gatewayMigrations[i] brings the gateway tables from version i to i+1.
// Entries are append-only. Times are INTEGER microseconds since the Unix
// epoch, as in the other stores' tables.
var gatewayMigrations = []string{
	// 1: inbound events already taken, pairing codes and approved
	// pairings, each platform's failed approvals, and which hermes
	// session each chat's session key is bound to.
	`
CREATE TABLE gateway_seen (
	platform   TEXT NOT NULL,
	event_id   TEXT NOT NULL,
	expires_at INTEGER NOT NULL,
	PRIMARY KEY (platform, event_id)
);
CREATE INDEX gateway_seen_expiry ON gateway_seen(expires_at);

CREATE TABLE gateway_pairing_codes (
	platform   TEXT NOT NULL,
	code       TEXT NOT NULL,
	user_id    TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	PRIMARY KEY (platform, code)
);
CREATE UNIQUE INDEX gateway_pairing_codes_user ON gateway_pairing_codes(platform, user_id);

CREATE TABLE gateway_pairings (
	platform    TEXT NOT NULL,
	user_id     TEXT NOT NULL,
	approved_at INTEGER NOT NULL,
	PRIMARY KEY (platform, user_id)
);

CREATE TABLE gateway_pairing_locks (
	platform     TEXT PRIMARY KEY,
	failures     INTEGER NOT NULL DEFAULT 0,
	locked_until INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE gateway_sessions (
	key         TEXT PRIMARY KEY,
	session_id  TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	last_active INTEGER NOT NULL
);
`,
	// 2: the inbound messages taken but not yet answered, so a restart
	// runs them instead of losing them, and the model each chat chose
	// with /model.
	`
CREATE TABLE gateway_inbox (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	platform    TEXT NOT NULL,
	event_id    TEXT NOT NULL,
	event       BLOB NOT NULL,
	received_at INTEGER NOT NULL,
	started_at  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE gateway_chat_models (
	key    TEXT PRIMARY KEY,
	model  TEXT NOT NULL,
	set_at INTEGER NOT NULL
);
`,
	// 3: what the email gateway keeps across restarts: where it stopped
	// reading each mailbox (UIDVALIDITY and the last UID taken), and
	// each mail thread's subject, last message and References, so a
	// reply after a restart is still threaded.
	`
CREATE TABLE gateway_mail_cursors (
	mailbox      TEXT PRIMARY KEY,
	uid_validity INTEGER NOT NULL,
	last_uid     INTEGER NOT NULL
);

CREATE TABLE gateway_mail_threads (
	chat       TEXT NOT NULL,
	thread     TEXT NOT NULL,
	subject    TEXT NOT NULL,
	last_id    TEXT NOT NULL,
	refs       TEXT NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (chat, thread)
);
`,
	// 4: where each platform's stream of inbound events was read up to
	// (Matrix's next_batch), so a restart resumes there instead of
	// answering the backlog again or missing what came meanwhile.
	`
CREATE TABLE gateway_cursors (
	platform   TEXT NOT NULL,
	name       TEXT NOT NULL,
	value      TEXT NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (platform, name)
);
`,
	// 5: the role agent each chat is bound to with /agent, kept like
	// its model by the chat's session key.
	`
CREATE TABLE gateway_chat_agents (
	key    TEXT PRIMARY KEY,
	agent  TEXT NOT NULL,
	set_at INTEGER NOT NULL
);
`,
	// 6: who holds each held message: the process that took it, so
	// that of replicas sharing the database only one runs it, and one
	// still running is not run again by another that starts. A message
	// held before (holder '') belongs to no live process.
	`
ALTER TABLE gateway_inbox ADD COLUMN holder TEXT NOT NULL DEFAULT '';
`,
}
