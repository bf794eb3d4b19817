package sqlitedb

// kbSchema is the knowledge base's tables (kb): the version goes to
// state_meta, or to kb_meta in a file where the knowledge base was
// created before the session tables.
var kbSchema = schema{name: "kb", versionKey: "kb_schema_version", fallback: "kb_meta", migrations: kbMigrations}

// kbMigrations[i] brings the knowledge base's tables from version i to
// i+1. Entries are append-only. Times are INTEGER microseconds since the
// Unix epoch (0: none), as in the other stores' tables.
var kbMigrations = []string{
	// 1: knowledge bases, their sources (a file path or URL each, with
	// the content hash that lets an unchanged source be skipped), the
	// sources' chunks and two FTS5 indexes over the chunks, as the
	// session store keeps over messages: unicode61 for words, trigram
	// for CJK text, where unicode61 sees a whole sentence as one word.
	// Both are external-content tables, so a chunk's text is stored
	// once. A source's chunks are only ever inserted and deleted, never
	// updated, so two triggers per index keep them in sync. vector held
	// a chunk's embedding as little-endian float32s (moved by 2).
	`
CREATE TABLE kb_bases (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	name       TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL
);

CREATE TABLE kb_sources (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	kb          INTEGER NOT NULL REFERENCES kb_bases(id),
	uri         TEXT NOT NULL,
	kind        TEXT NOT NULL,
	hash        TEXT NOT NULL DEFAULT '',
	mtime       INTEGER NOT NULL DEFAULT 0,
	size        INTEGER NOT NULL DEFAULT 0,
	tags        TEXT NOT NULL DEFAULT '',
	ingested_at INTEGER NOT NULL DEFAULT 0,
	error       TEXT NOT NULL DEFAULT '',
	UNIQUE (kb, uri)
);

CREATE TABLE kb_chunks (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	source     INTEGER NOT NULL REFERENCES kb_sources(id),
	ordinal    INTEGER NOT NULL,
	heading    TEXT NOT NULL DEFAULT '',
	page       INTEGER NOT NULL DEFAULT 0,
	line_start INTEGER NOT NULL DEFAULT 0,
	line_end   INTEGER NOT NULL DEFAULT 0,
	text       TEXT NOT NULL,
	tokens     INTEGER NOT NULL DEFAULT 0,
	vector     BLOB
);
CREATE INDEX kb_chunks_source ON kb_chunks(source, ordinal);

CREATE VIRTUAL TABLE kb_chunks_fts USING fts5(
	text, heading,
	content='kb_chunks', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2'
);
CREATE VIEW kb_chunks_trigram_source AS
SELECT id, text || '  ' AS text, heading || '  ' AS heading
FROM kb_chunks WHERE ` + cjkKBChunks + `;
CREATE VIRTUAL TABLE kb_chunks_fts_trigram USING fts5(
	text, heading,
	content='kb_chunks_trigram_source', content_rowid='id',
	tokenize='trigram'
);

CREATE TRIGGER kb_chunks_fts_insert AFTER INSERT ON kb_chunks BEGIN
	INSERT INTO kb_chunks_fts(rowid, text, heading) VALUES (new.id, new.text, new.heading);
END;
CREATE TRIGGER kb_chunks_fts_delete AFTER DELETE ON kb_chunks BEGIN
	INSERT INTO kb_chunks_fts(kb_chunks_fts, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
END;
CREATE TRIGGER kb_chunks_fts_trigram_insert AFTER INSERT ON kb_chunks WHEN ` + cjkKBNew + ` BEGIN
	INSERT INTO kb_chunks_fts_trigram(rowid, text, heading) VALUES (new.id, new.text || '  ', new.heading || '  ');
END;
CREATE TRIGGER kb_chunks_fts_trigram_delete AFTER DELETE ON kb_chunks WHEN ` + cjkKBOld + ` BEGIN
	INSERT INTO kb_chunks_fts_trigram(kb_chunks_fts_trigram, rowid, text, heading) VALUES ('delete', old.id, old.text || '  ', old.heading || '  ');
END;
-- The indexes' terms with the chunks holding each: search drops a
-- query's words that most chunks hold and expands 1–2 character CJK
-- terms into the trigrams they begin.
CREATE VIRTUAL TABLE kb_chunks_fts_vocab USING fts5vocab(kb_chunks_fts, row);
CREATE VIRTUAL TABLE kb_chunks_fts_trigram_vocab USING fts5vocab(kb_chunks_fts_trigram, row);
`,
	// 2: vectors move to a table of their own, an inverted-file index
	// (IVF): kb_cells holds the centroids of k-means over the vectors,
	// and each vector records its nearest cell, so a search reads the
	// vectors of a few cells instead of all of them. A vector's cell is 0
	// while there is no index (small knowledge bases are searched
	// exactly). kb_embedding is the one row saying which model made the
	// vectors and their length, so vectors of two models never mix, and
	// how many vectors the index was trained on, so it is trained again
	// when the knowledge base has doubled or halved. Deleting a chunk
	// deletes its vector.
	`
CREATE TABLE kb_vectors (
	chunk  INTEGER PRIMARY KEY,
	cell   INTEGER NOT NULL DEFAULT 0,
	vector BLOB NOT NULL
);
CREATE INDEX kb_vectors_cell ON kb_vectors(cell);
CREATE TABLE kb_cells (
	id       INTEGER PRIMARY KEY,
	centroid BLOB NOT NULL
);
CREATE TABLE kb_embedding (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	model      TEXT NOT NULL,
	dims       INTEGER NOT NULL,
	trained_on INTEGER NOT NULL DEFAULT 0
);
INSERT INTO kb_vectors (chunk, vector) SELECT id, vector FROM kb_chunks WHERE vector IS NOT NULL;
INSERT INTO kb_embedding (id, model, dims)
	SELECT 1, '', length(vector) / 4 FROM kb_chunks WHERE vector IS NOT NULL LIMIT 1;
CREATE TRIGGER kb_chunks_vector_delete AFTER DELETE ON kb_chunks BEGIN
	DELETE FROM kb_vectors WHERE chunk = old.id;
END;
ALTER TABLE kb_chunks DROP COLUMN vector;
`,
}

// cjkKBChunks, cjkKBNew and cjkKBOld are the condition for a chunk (of
// the table, new or old) to be in the trigram index: CJK text in its text
// or heading, by the session index's cjkGlob. Constants, so the migration
// is one too.
const (
	cjkKBChunks = "(kb_chunks.text GLOB " + cjkGlob + " OR kb_chunks.heading GLOB " + cjkGlob + ")"
	cjkKBNew    = "(new.text GLOB " + cjkGlob + " OR new.heading GLOB " + cjkGlob + ")"
	cjkKBOld    = "(old.text GLOB " + cjkGlob + " OR old.heading GLOB " + cjkGlob + ")"
)
