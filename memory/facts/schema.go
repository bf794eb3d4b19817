package facts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// versionKey is the fact schema's entry in state_meta or facts_meta.
const versionKey = "facts_schema_version"

// migrations[i] brings the fact tables from version i to i+1. Entries are
// append-only: a released migration is never edited, only followed.
//
// Times are INTEGER microseconds since the Unix epoch, as in the session
// tables. norm is the content as normalize() leaves it, so duplicates are
// found by index rather than by normalizing every row; has_cjk marks the
// rows the CJK scan must search (see rank.go); embedding is the fact's
// vector as little-endian float32s, when the store has an embedder.
var migrations = []string{
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
}

// migrate brings the fact tables to len(migrations). It first reads the
// version without the write lock, so an up-to-date file costs no write
// transaction; otherwise it reads the version again inside BEGIN
// IMMEDIATE, so when several processes open a new file at once one
// migrates and the others find nothing left to do.
//
// The version lives in state_meta, the session store's key-value table,
// when that table exists. The store must not create state_meta itself:
// the session store's first migration creates it without IF NOT EXISTS
// and would fail. So when it is missing the version goes to facts_meta,
// and the version read is the larger of the two, which stays right if
// the session store creates state_meta later.
func (s *Store) migrate(ctx context.Context) error {
	if v, err := readVersion(ctx, s.db); err == nil && v == len(migrations) {
		return nil
	}
	return s.writeTx(ctx, "migrate fact schema", func(tx *sql.Tx) error {
		v, err := readVersion(ctx, tx)
		if err != nil {
			return err
		}
		if v > len(migrations) {
			return fmt.Errorf("fact schema version %d is newer than this program knows (%d): upgrade hermes",
				v, len(migrations))
		}
		if v == len(migrations) {
			return nil
		}
		for ; v < len(migrations); v++ {
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrate fact schema to version %d: %w", v+1, err)
			}
		}
		return writeVersion(ctx, tx, v)
	})
}

// querier is what readVersion needs of a *sql.DB or *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readVersion is the fact schema version recorded in state_meta or
// facts_meta, whichever is larger; zero when neither records one.
func readVersion(ctx context.Context, q querier) (int, error) {
	v := 0
	for _, table := range []string{"state_meta", "facts_meta"} {
		ok, err := tableExists(ctx, q, table)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		var n int
		err = q.QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM `+table+` WHERE key = ?`, versionKey).Scan(&n)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return 0, fmt.Errorf("read %s.%s: %w", table, versionKey, err)
		default:
			v = max(v, n)
		}
	}
	return v, nil
}

// writeVersion records v in state_meta if it exists, else in facts_meta.
func writeVersion(ctx context.Context, tx *sql.Tx, v int) error {
	table := "state_meta"
	ok, err := tableExists(ctx, tx, table)
	if err != nil {
		return err
	}
	if !ok {
		table = "facts_meta"
		if _, err := tx.ExecContext(ctx,
			`CREATE TABLE IF NOT EXISTS facts_meta (key TEXT PRIMARY KEY, value TEXT)`); err != nil {
			return fmt.Errorf("create facts_meta: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (key, value) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value`, versionKey, fmt.Sprint(v)); err != nil {
		return fmt.Errorf("write %s.%s: %w", table, versionKey, err)
	}
	return nil
}

// tableExists reports whether the database has a table of that name.
func tableExists(ctx context.Context, q querier, name string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&n); err != nil {
		return false, fmt.Errorf("look for table %s: %w", name, err)
	}
	return n > 0, nil
}
