package kb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/sqltext"
)

// write stores s and replaces its chunks with chunks, in one
// transaction, creating the knowledge base kb when it is new.
func (k *KB) write(ctx context.Context, kb string, s source, chunks []Chunk) error {
	now := k.clock.Now().UnixMicro()
	d := k.db.Dialect()
	s.uri, s.kind, s.hash, s.tags, s.err = sqltext.Clean(d, s.uri), sqltext.Clean(d, s.kind), sqltext.Clean(d, s.hash), sqltext.Clean(d, s.tags), sqltext.Clean(d, s.err)
	return k.writeTx(ctx, "ingest "+s.uri, func(tx *sql.Tx) error {
		base, err := baseID(ctx, tx, kb, k.clock.Now())
		if err != nil {
			return err
		}
		var id int64
		err = tx.QueryRowContext(ctx, `
INSERT INTO kb_sources (kb, uri, kind, hash, mtime, size, tags, ingested_at, error)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (kb, uri) DO UPDATE SET kind = excluded.kind, hash = excluded.hash, mtime = excluded.mtime,
	size = excluded.size, tags = excluded.tags, ingested_at = excluded.ingested_at, error = excluded.error
RETURNING id`, base, s.uri, s.kind, s.hash, s.mtime, s.size, s.tags, now, s.err).Scan(&id)
		if err != nil {
			return fmt.Errorf("store source %s: %w", s.uri, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM kb_chunks WHERE source = ?`, id); err != nil {
			return fmt.Errorf("drop the old chunks of %s: %w", s.uri, err)
		}
		if len(chunks) == 0 {
			return nil
		}
		stmt, err := tx.PrepareContext(ctx, `
INSERT INTO kb_chunks (source, ordinal, heading, page, line_start, line_end, text, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("store the chunks of %s: %w", s.uri, err)
		}
		defer stmt.Close()
		for i, c := range chunks {
			if _, err := stmt.ExecContext(ctx, id, i, sqltext.Clean(d, c.Heading), c.Page, c.LineStart, c.LineEnd, sqltext.Clean(d, c.Text), c.Tokens); err != nil {
				return fmt.Errorf("store the chunks of %s: %w", s.uri, err)
			}
		}
		return nil
	})
}

// touch records a source's new modification time, size and tags when
// its bytes are unchanged, so the next add skips it without reading.
func (k *KB) touch(ctx context.Context, id int64, s source) error {
	return k.writeTx(ctx, "touch "+s.uri, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE kb_sources SET mtime = ?, size = ?, tags = ? WHERE id = ?`, s.mtime, s.size, s.tags, id)
		if err != nil {
			return fmt.Errorf("update source %s: %w", s.uri, err)
		}
		return nil
	})
}

// sourcesUnder lists the URIs of the knowledge base kb that start with
// prefix.
func (k *KB) sourcesUnder(ctx context.Context, kb, prefix string) ([]string, error) {
	rows, err := k.db.Reader().QueryContext(ctx, `
SELECT s.uri FROM kb_sources s JOIN kb_bases b ON b.id = s.kb
WHERE b.name = ? AND substr(s.uri, 1, ?) = ? ORDER BY s.uri`, kb, utf8.RuneCountInString(prefix), prefix)
	if err != nil {
		return nil, fmt.Errorf("list sources under %s: %w", prefix, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var uri string
		if err := rows.Scan(&uri); err != nil {
			return nil, fmt.Errorf("list sources under %s: %w", prefix, err)
		}
		out = append(out, uri)
	}
	return out, rows.Err()
}

// removeSource deletes a source of the knowledge base kb and its chunks.
func (k *KB) removeSource(ctx context.Context, kb, uri string) error {
	return k.writeTx(ctx, "remove "+uri, func(tx *sql.Tx) error {
		return deleteSources(ctx, tx, `SELECT s.id FROM kb_sources s JOIN kb_bases b ON b.id = s.kb WHERE b.name = ? AND s.uri = ?`,
			kb, sqltext.Clean(k.db.Dialect(), uri))
	})
}

// deleteSources deletes the sources the query selects (by id) and their
// chunks.
func deleteSources(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	in := "(" + strings.TrimSpace(query) + ")"
	if _, err := tx.ExecContext(ctx, `DELETE FROM kb_chunks WHERE source IN `+in, args...); err != nil {
		return fmt.Errorf("remove chunks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM kb_sources WHERE id IN `+in, args...); err != nil {
		return fmt.Errorf("remove sources: %w", err)
	}
	return nil
}
