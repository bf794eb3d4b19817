package pgdb

// sessionsSchema is the session store's tables (session/postgres):
// sessions, messages with their search columns, usage by day, turn
// leases.
func sessionsSchema() schema {
	return schema{name: "sessions", migrations: []string{
		// 1: sessions, messages with their search columns, usage by day.
		`CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE sessions (
	id                 text PRIMARY KEY,
	source             text NOT NULL,
	title              text NOT NULL DEFAULT '',
	model              text NOT NULL DEFAULT '',
	parent_session_id  text REFERENCES sessions (id) ON DELETE SET NULL,
	started_at         bigint NOT NULL,
	ended_at           bigint,
	end_reason         text NOT NULL DEFAULT '',
	cwd                text NOT NULL DEFAULT '',
	agent              text NOT NULL DEFAULT '',
	user_id            text NOT NULL DEFAULT '',
	tenant             text NOT NULL DEFAULT '',
	system_prompt      text,
	message_count      bigint NOT NULL DEFAULT 0,
	tool_call_count    bigint NOT NULL DEFAULT 0,
	input_tokens       bigint NOT NULL DEFAULT 0,
	output_tokens      bigint NOT NULL DEFAULT 0,
	cache_read_tokens  bigint NOT NULL DEFAULT 0,
	cache_write_tokens bigint NOT NULL DEFAULT 0,
	reasoning_tokens   bigint NOT NULL DEFAULT 0,
	cost_usd           double precision NOT NULL DEFAULT 0
);
CREATE INDEX sessions_started ON sessions (started_at DESC, id DESC);
CREATE INDEX sessions_source ON sessions (source, started_at DESC);
CREATE INDEX sessions_parent ON sessions (parent_session_id);
CREATE INDEX sessions_user ON sessions (user_id, tenant);
CREATE TABLE messages (
	id               bigserial PRIMARY KEY,
	session_id       text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	role             text NOT NULL,
	parts            text,
	tool_calls       text,
	tool_call_id     text NOT NULL DEFAULT '',
	tool_name        text NOT NULL DEFAULT '',
	finish_reason    text NOT NULL DEFAULT '',
	reasoning        text NOT NULL DEFAULT '',
	reasoning_blocks text,
	tokens           bigint NOT NULL DEFAULT 0,
	created_at       bigint NOT NULL,
	search_text      text NOT NULL,
	search_words     tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED
);
CREATE INDEX messages_session ON messages (session_id, id);
CREATE INDEX messages_words ON messages USING gin (search_words);
CREATE INDEX messages_trigrams ON messages USING gin (search_text gin_trgm_ops);
CREATE TABLE usage_daily (
	day           text NOT NULL,
	user_id       text NOT NULL,
	tenant        text NOT NULL,
	model         text NOT NULL,
	calls         bigint NOT NULL,
	input_tokens  bigint NOT NULL,
	output_tokens bigint NOT NULL,
	cost_usd      double precision NOT NULL,
	PRIMARY KEY (day, user_id, tenant, model)
);`,
		// 2: per-session turn leases.
		`CREATE TABLE session_leases (
	session_id text PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
	holder     text NOT NULL,
	expires_at   bigint NOT NULL
);`,
	}}
}
