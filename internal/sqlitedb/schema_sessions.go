package sqlitedb

// The schema follows Hermes Agent's state.db so the files look familiar:
// sessions, messages, two FTS5 indexes over the messages, state_meta and a
// one-row schema_version. Times are INTEGER microseconds since the Unix
// epoch in UTC: exact (a REAL of seconds cannot hold microseconds of
// today's dates exactly), sortable, and the precision PostgreSQL keeps, so
// every store round-trips the same values.

// sessionSchema is the session store's tables (session/sqlite). Its
// version is the one row of schema_version.
var sessionSchema = schema{name: "session", versionTable: "schema_version", migrations: sessionMigrations}

// sessionMigrations[i] brings the session tables from version i to i+1.
var sessionMigrations = []string{
	// 1: sessions and messages.
	`
CREATE TABLE sessions (
	id                 TEXT PRIMARY KEY,
	source             TEXT NOT NULL DEFAULT '',
	title              TEXT,
	model              TEXT,
	parent_session_id  TEXT REFERENCES sessions(id) ON DELETE SET NULL,
	started_at         INTEGER NOT NULL,
	ended_at           INTEGER,
	end_reason         TEXT,
	message_count      INTEGER NOT NULL DEFAULT 0,
	tool_call_count    INTEGER NOT NULL DEFAULT 0,
	input_tokens       INTEGER NOT NULL DEFAULT 0,
	output_tokens      INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
	cache_write_tokens INTEGER NOT NULL DEFAULT 0,
	reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
	estimated_cost_usd REAL NOT NULL DEFAULT 0,
	cwd                TEXT
);
CREATE INDEX sessions_started ON sessions(started_at DESC, id DESC);
CREATE INDEX sessions_source_started ON sessions(source, started_at DESC, id DESC);
CREATE INDEX sessions_parent ON sessions(parent_session_id) WHERE parent_session_id IS NOT NULL;

-- AUTOINCREMENT so ids keep increasing even after the newest messages
-- are deleted; callers use them as cursors.
CREATE TABLE messages (
	id               INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id       TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	role             TEXT NOT NULL,
	content          TEXT,
	parts            TEXT,
	tool_calls       TEXT,
	tool_call_id     TEXT,
	tool_name        TEXT,
	finish_reason    TEXT,
	reasoning        TEXT,
	reasoning_blocks TEXT,
	token_count      INTEGER NOT NULL DEFAULT 0,
	timestamp        INTEGER NOT NULL
);
CREATE INDEX messages_session ON messages(session_id, id);

CREATE TABLE state_meta (
	key   TEXT PRIMARY KEY,
	value TEXT
);
`,
	// 2: full-text indexes. Both are external-content tables over
	// messages, so the text is stored once. Triggers keep them in sync;
	// the delete and update triggers must pass exactly the values that
	// were indexed. columnsize=0 drops FTS5's per-row token counts, which
	// only its bm25() reads; the store ranks by itself
	// (session/sqlite/search.go), and each append writes one b-tree fewer
	// per index.
	//
	// The trigram index holds only rows with CJK text
	// (session/sqlite/search.go says why); the cjk conditions decide, on
	// insert and delete alike, so the two always agree. (The SQL is as
	// released, so its comments name files of session/sqlite.)
	`
CREATE VIRTUAL TABLE messages_fts USING fts5(
	content, tool_name, tool_calls,
	content='messages', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2', columnsize=0
);
-- The trigram index reads its rows through a view: the messages with
-- CJK text, two spaces after their text columns, so every character of
-- the text starts a trigram and a 1–2 character term has its matches
-- listed under the trigrams it begins (see trigram.go). The triggers
-- index exactly what the view shows, so FTS5's 'rebuild' and
-- 'integrity-check' agree with them.
CREATE VIEW messages_trigram_source AS
SELECT id, content || '  ' AS content, tool_name, tool_calls || '  ' AS tool_calls
FROM messages WHERE ` + cjkMessages + `;
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(
	content, tool_name, tool_calls,
	content='messages_trigram_source', content_rowid='id',
	tokenize='trigram', columnsize=0
);

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
	VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
	VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, tool_name, tool_calls ON messages BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
	VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
	INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
	VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;

CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages
WHEN ` + cjkNew + ` BEGIN
	INSERT INTO messages_fts_trigram(rowid, content, tool_name, tool_calls)
	VALUES (new.id, new.content || '  ', new.tool_name, new.tool_calls || '  ');
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages
WHEN ` + cjkOld + ` BEGIN
	INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name, tool_calls)
	VALUES ('delete', old.id, old.content || '  ', old.tool_name, old.tool_calls || '  ');
END;
-- One trigger, so the old row leaves the index before the new one enters.
CREATE TRIGGER messages_fts_trigram_update AFTER UPDATE OF content, tool_name, tool_calls ON messages BEGIN
	INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name, tool_calls)
	SELECT 'delete', old.id, old.content || '  ', old.tool_name, old.tool_calls || '  '
	WHERE ` + cjkOld + `;
	INSERT INTO messages_fts_trigram(rowid, content, tool_name, tool_calls)
	SELECT new.id, new.content || '  ', new.tool_name, new.tool_calls || '  '
	WHERE ` + cjkNew + `;
END;

-- The trigram index's terms, to expand 1–2 character terms.
CREATE VIRTUAL TABLE messages_fts_trigram_vocab USING fts5vocab(messages_fts_trigram, row);
`,
	// 3: the system prompt a session was started with (Hermes's column),
	// so a session resumed by another process sends the same prefix and
	// keeps hitting the provider's prompt cache.
	`ALTER TABLE sessions ADD COLUMN system_prompt TEXT;`,
	// 4: one writer per session. The process running a turn in a session
	// holds its lease: it renews it while the turn runs and deletes it at
	// the end; one that expired was left by a holder that stopped, and is
	// taken over (session/sqlite's lease.go).
	`
CREATE TABLE session_leases (
	session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
	holder     TEXT NOT NULL,
	expires_at INTEGER NOT NULL
);
`,
	// 5: whether a message holds CJK text is worked out by the writer,
	// which has the text in hand, and stored in cjk; the trigger reads
	// the flag instead of scanning the text with GLOB, which cost about
	// a quarter of every append. A row written without the flag (NULL)
	// is still judged by GLOB. The flag must agree with the GLOB, which
	// the trigram view and the delete and update triggers still use:
	// session/sqlite's hasCJK covers the same ranges (and is fuzzed
	// against them).
	`
ALTER TABLE messages ADD COLUMN cjk INTEGER;
DROP TRIGGER messages_fts_trigram_insert;
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages
WHEN CASE WHEN new.cjk IS NULL THEN ` + cjkNew + ` ELSE new.cjk END BEGIN
	INSERT INTO messages_fts_trigram(rowid, content, tool_name, tool_calls)
	VALUES (new.id, new.content || '  ', new.tool_name, new.tool_calls || '  ');
END;
`,
	// 6: messages are indexed in batches (IndexMessages), not one commit
	// at a time: indexing was four fifths of what storing a message cost,
	// most of it FTS5 flushing a new segment at every commit. Every
	// message up to state_meta's fts_indexed_upto is indexed, none after
	// it, so the delete and update triggers touch the indexes only for
	// rows at or below it. (Message ids only grow: AUTOINCREMENT.)
	`
DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_trigram_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP TRIGGER messages_fts_trigram_delete;
DROP TRIGGER messages_fts_trigram_update;
INSERT OR REPLACE INTO state_meta (key, value)
SELECT 'fts_indexed_upto', coalesce(max(id), 0) FROM messages;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
WHEN old.id <= ` + indexedUpto + ` BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
	VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, tool_name, tool_calls ON messages
WHEN old.id <= ` + indexedUpto + ` BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
	VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
	INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
	VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages
WHEN old.id <= ` + indexedUpto + ` AND ` + cjkOld + ` BEGIN
	INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name, tool_calls)
	VALUES ('delete', old.id, old.content || '  ', old.tool_name, old.tool_calls || '  ');
END;
CREATE TRIGGER messages_fts_trigram_update AFTER UPDATE OF content, tool_name, tool_calls ON messages
WHEN old.id <= ` + indexedUpto + ` BEGIN
	INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name, tool_calls)
	SELECT 'delete', old.id, old.content || '  ', old.tool_name, old.tool_calls || '  '
	WHERE ` + cjkOld + `;
	INSERT INTO messages_fts_trigram(rowid, content, tool_name, tool_calls)
	SELECT new.id, new.content || '  ', new.tool_name, new.tool_calls || '  '
	WHERE ` + cjkNew + `;
END;
`,
	// 7: the role agent (config's agents:) a session runs as, so a
	// continued session keeps its identity, tools, model and memory.
	`ALTER TABLE sessions ADD COLUMN agent TEXT;`,
	// 8: the user a session belongs to and that user's tenant (config's
	// users: and tenants:), so a user sees only their own sessions and
	// costs add up per user and tenant. user_id is Hermes Agent's name
	// for the column. Empty is the local owner.
	`
ALTER TABLE sessions ADD COLUMN user_id TEXT;
ALTER TABLE sessions ADD COLUMN tenant TEXT;
CREATE INDEX sessions_user ON sessions(user_id, started_at DESC) WHERE user_id IS NOT NULL;
`,
	// 9: usage by UTC day, user, tenant and model, added to with every
	// model call in the transaction that adds it to the session: daily
	// budgets count what was spent today even in a session started
	// yesterday, and cost charts read a few rows a day, not every
	// session. user_id and tenant are '' for the local owner.
	`
CREATE TABLE usage_daily (
	day           TEXT NOT NULL,
	user_id       TEXT NOT NULL DEFAULT '',
	tenant        TEXT NOT NULL DEFAULT '',
	model         TEXT NOT NULL DEFAULT '',
	calls         INTEGER NOT NULL DEFAULT 0,
	input_tokens  INTEGER NOT NULL DEFAULT 0,
	output_tokens INTEGER NOT NULL DEFAULT 0,
	cost_usd      REAL NOT NULL DEFAULT 0,
	PRIMARY KEY (day, user_id, tenant, model)
) WITHOUT ROWID;
CREATE INDEX usage_daily_tenant ON usage_daily(tenant, day);
CREATE INDEX usage_daily_user ON usage_daily(user_id, day);
`,
}

// indexedUpto is, in SQL, the id of the last message in the full-text
// indexes (see IndexMessages).
const indexedUpto = `(SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = 'fts_indexed_upto')`

// cjkGlob matches text holding at least one CJK character: Han
// ideographs (with extension A and compatibility ideographs), kana, Hangul
// and CJK or full-width punctuation. GLOB compares code points, so the
// ranges mean what they say. isCJK in session/sqlite/query.go covers the
// same ranges.
const cjkGlob = `'*[` +
	"\u3000-\u30ff" + // CJK punctuation, hiragana, katakana
	"\u3400-\u4dbf" + // Han extension A
	"\u4e00-\u9fff" + // Han
	"\uac00-\ud7af" + // Hangul syllables
	"\uf900-\ufaff" + // Han compatibility
	"\uff00-\uffef" + // full-width forms
	`]*'`

// IsCJK reports whether r is in the ranges of cjkGlob: text holding one
// goes into the trigram indexes (of messages and of knowledge base
// chunks), and a query term holding one can be found only there, so the
// stores decide with this what the schema's GLOB decides.
func IsCJK(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x30ff, // CJK punctuation, hiragana, katakana
		r >= 0x3400 && r <= 0x4dbf, // Han extension A
		r >= 0x4e00 && r <= 0x9fff, // Han
		r >= 0xac00 && r <= 0xd7af, // Hangul syllables
		r >= 0xf900 && r <= 0xfaff, // Han compatibility
		r >= 0xff00 && r <= 0xffef: // full-width forms
		return true
	}
	return false
}

// cjkCond is the condition for a row (new, old, or a table's) to be in
// the trigram index.
func cjkCond(row string) string {
	return "(" + row + ".content GLOB " + cjkGlob + " OR " + row + ".tool_calls GLOB " + cjkGlob + ")"
}

// cjkMessages, cjkNew and cjkOld are cjkCond of messages, new and old as
// constants, for the migrations: a migration built from constants is
// itself one, which the compiler lays out, where a call to cjkCond in it
// would run at every start of every hermes command.
const (
	cjkMessages = "(messages.content GLOB " + cjkGlob + " OR messages.tool_calls GLOB " + cjkGlob + ")"
	cjkNew      = "(new.content GLOB " + cjkGlob + " OR new.tool_calls GLOB " + cjkGlob + ")"
	cjkOld      = "(old.content GLOB " + cjkGlob + " OR old.tool_calls GLOB " + cjkGlob + ")"
)
