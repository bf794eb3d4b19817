package sqlitedb

// factSchema is the long-term facts' tables (memory/facts): the version
// goes to state_meta, or to facts_meta in a file where the fact tables
// were created before the session tables.
var factSchema = schema{name: "fact", versionKey: "facts_schema_version", fallback: "facts_meta", migrations: factMigrations}

// factMigrations[i] brings the fact tables from version i to i+1.
// Entries are append-only: a released migration is never edited, only
// followed.
//
// Times are INTEGER microseconds since the Unix epoch, as in the session
// tables. norm is the content as the fact store's normalize() leaves it,
// so duplicates are found by index rather than by normalizing every row;
// has_cjk marks the rows the CJK scan must search (see
// memory/facts/rank.go). A fact's vector, little-endian float32s, and
// its model are in fact_vectors since version 6 (versions 1 to 5 kept
// them in facts.embedding and embed_model).
var factMigrations = []string{
	// 1: facts and their word index.
	`
CREATE TABLE facts (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	kind           TEXT NOT NULL,
	subject        TEXT NOT NULL DEFAULT '',
	content        TEXT NOT NULL,
	norm           TEXT NOT NULL,
	has_cjk        INTEGER NOT NULL DEFAULT 0,
	source_session TEXT NOT NULL DEFAULT '',
	created_at     INTEGER NOT NULL,
	last_used_at   INTEGER NOT NULL DEFAULT 0,
	uses           INTEGER NOT NULL DEFAULT 0,
	embedding      BLOB
);
CREATE INDEX facts_norm ON facts(norm);
CREATE INDEX facts_created ON facts(created_at DESC, id DESC);

CREATE VIRTUAL TABLE facts_fts USING fts5(
	subject, content,
	content='facts', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
	INSERT INTO facts_fts(rowid, subject, content) VALUES (new.id, new.subject, new.content);
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, subject, content)
	VALUES ('delete', old.id, old.subject, old.content);
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF subject, content ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, subject, content)
	VALUES ('delete', old.id, old.subject, old.content);
	INSERT INTO facts_fts(rowid, subject, content) VALUES (new.id, new.subject, new.content);
END;
`,
	// 2: whose a fact is: '' for the shared facts (the owner's), a user's
	// id (config's users:) for that user's own, which no one else's
	// search or recall sees.
	`
ALTER TABLE facts ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX facts_owner_norm ON facts(owner, norm);
`,
	// 3: which sessions' messages were extracted into facts, and how
	// many extractions each day (UTC) made, for the daily cap: several
	// processes sharing the state extract a session once, and spend one
	// budget.
	`
CREATE TABLE fact_extractions (
	session_id TEXT PRIMARY KEY,
	messages   INTEGER NOT NULL,
	at         INTEGER NOT NULL
);
CREATE TABLE fact_extraction_days (
	day   TEXT PRIMARY KEY,
	count INTEGER NOT NULL
);
`,
	// 4: the newer fact a fact was superseded by (0: current): a fact of
	// the same subject that came later replaces it in recall and search,
	// and is listed beside it only on request.
	`
ALTER TABLE facts ADD COLUMN superseded_by INTEGER NOT NULL DEFAULT 0;
`,
	// 5: the embedding model a fact's vector came from: a vector of
	// another model is not compared with a query's, and is made again.
	`
ALTER TABLE facts ADD COLUMN embed_model TEXT NOT NULL DEFAULT '';
`,
	// 6: vectors in a table of their own, out of the facts' rows: a scan
	// of the facts (the CJK terms', see memory/facts/rank.go) no longer
	// reads kilobytes of vector per row to reach the columns after it.
	// seq grows with every vector stored, replaced ones included, so a
	// process keeping vectors in memory reads only the ones stored since
	// it last looked. facts_live lists the current facts of an owner
	// without reading their rows.
	`
CREATE TABLE fact_vectors (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	fact_id INTEGER NOT NULL UNIQUE,
	model   TEXT NOT NULL,
	vector  BLOB NOT NULL
);
INSERT INTO fact_vectors (fact_id, model, vector)
	SELECT id, embed_model, embedding FROM facts WHERE embedding IS NOT NULL ORDER BY id;
ALTER TABLE facts DROP COLUMN embedding;
ALTER TABLE facts DROP COLUMN embed_model;
CREATE TRIGGER fact_vectors_delete AFTER DELETE ON facts BEGIN
	DELETE FROM fact_vectors WHERE fact_id = old.id;
END;
CREATE INDEX facts_live ON facts(owner, superseded_by, id);
`,
	// 7: when a session's facts are due for extraction (0: none due), so
	// an idle timer lost with its process (a restart, a crash) is taken
	// up by the next hermes serve.
	`
ALTER TABLE fact_extractions ADD COLUMN due INTEGER NOT NULL DEFAULT 0;
CREATE INDEX fact_extractions_due ON fact_extractions(due) WHERE due > 0;
`,
}
