package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hermes-go/hermes/internal/sqltext"
)

// SourceInfo is a stored source as hermes kb list and show print it.
type SourceInfo struct {
	KB         string    `json:"kb"`
	URI        string    `json:"source"`
	Kind       string    `json:"kind"`
	Size       int64     `json:"size"`
	Tags       []string  `json:"tags"`
	Chunks     int       `json:"chunks"`
	IngestedAt time.Time `json:"ingested_at"`
	// Error is why the last ingest failed; empty when it did not.
	Error string `json:"error,omitempty"`
}

// ErrNotFound is returned for a source or knowledge base that does not
// exist.
var ErrNotFound = errors.New("kb: not found")

// ErrNotAllowed is returned for a search naming a knowledge base outside
// the ones it may use (Query.Within).
var ErrNotAllowed = errors.New("kb: not allowed")

// Sources lists the sources of the knowledge base kb, or of all when kb
// is empty, by knowledge base and URI.
func (k *KB) Sources(ctx context.Context, kb string) ([]SourceInfo, error) {
	return k.sources(ctx, `(? = '' OR b.name = ?)`, kb, kb)
}

// Source is the source uri (a path, made absolute by the caller, or a
// URL) in any knowledge base: one entry per knowledge base holding it.
func (k *KB) Source(ctx context.Context, uri string) ([]SourceInfo, error) {
	out, err := k.sources(ctx, `s.uri = ?`, sqltext.Clean(k.db.Dialect(), uri))
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("source %q: %w", uri, ErrNotFound)
	}
	return out, err
}

func (k *KB) sources(ctx context.Context, where string, args ...any) ([]SourceInfo, error) {
	rows, err := k.db.Reader().QueryContext(ctx, `
SELECT b.name, s.uri, s.kind, s.size, s.tags, s.ingested_at, s.error,
	(SELECT count(*) FROM kb_chunks c WHERE c.source = s.id)
FROM kb_sources s JOIN kb_bases b ON b.id = s.kb
WHERE `+where+` ORDER BY b.name, s.uri`, args...)
	if err != nil {
		return nil, fmt.Errorf("list sources: %w", err)
	}
	defer rows.Close()
	var out []SourceInfo
	for rows.Next() {
		var s SourceInfo
		var tags string
		var at int64
		if err := rows.Scan(&s.KB, &s.URI, &s.Kind, &s.Size, &tags, &at, &s.Error, &s.Chunks); err != nil {
			return nil, fmt.Errorf("list sources: %w", err)
		}
		s.Tags, s.IngestedAt = splitTags(tags), time.UnixMicro(at)
		out = append(out, s)
	}
	return out, rows.Err()
}

// Chunks is the chunks of the source uri in the knowledge base kb, in
// order, as Results without scores.
func (k *KB) Chunks(ctx context.Context, kb, uri string) ([]Result, error) {
	rows, err := k.db.Reader().QueryContext(ctx, `
SELECT c.id, b.name, s.uri, s.kind, c.heading, c.page, c.line_start, c.line_end, c.text
FROM kb_chunks c JOIN kb_sources s ON s.id = c.source JOIN kb_bases b ON b.id = s.kb
WHERE b.name = ? AND s.uri = ? ORDER BY c.ordinal`, kb, sqltext.Clean(k.db.Dialect(), uri))
	if err != nil {
		return nil, fmt.Errorf("read chunks of %s: %w", uri, err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		var r Result
		if err := rows.Scan(&r.Chunk, &r.KB, &r.Source, &r.Kind, &r.Heading, &r.Page, &r.LineStart, &r.LineEnd, &r.Text); err != nil {
			return nil, fmt.Errorf("read chunks of %s: %w", uri, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Remove deletes the source uri and its chunks from the knowledge base
// kb, or from every knowledge base when kb is empty. It returns how many
// sources it removed; none is ErrNotFound.
func (k *KB) Remove(ctx context.Context, kb, uri string) (int, error) {
	return k.remove(ctx, "source "+uri, `SELECT s.id FROM kb_sources s JOIN kb_bases b ON b.id = s.kb WHERE (? = '' OR b.name = ?) AND s.uri = ?`, kb, kb, sqltext.Clean(k.db.Dialect(), uri))
}

// RemoveKB deletes the knowledge base kb with all its sources and
// chunks, returning how many sources it held.
func (k *KB) RemoveKB(ctx context.Context, kb string) (int, error) {
	if err := CheckName(kb); err != nil {
		return 0, err
	}
	n, err := k.remove(ctx, "knowledge base "+kb, `SELECT s.id FROM kb_sources s JOIN kb_bases b ON b.id = s.kb WHERE b.name = ?`, kb)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return 0, err
	}
	var gone int64
	err = k.writeTx(ctx, "remove knowledge base "+kb, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM kb_bases WHERE name = ?`, kb)
		if err == nil {
			gone, err = res.RowsAffected()
		}
		return err
	})
	if err == nil && gone == 0 {
		err = fmt.Errorf("knowledge base %q: %w", kb, ErrNotFound)
	}
	return n, err
}

// remove deletes the sources query selects, counting them first.
func (k *KB) remove(ctx context.Context, what, query string, args ...any) (int, error) {
	var n int
	err := k.writeTx(ctx, "remove "+what, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (`+query+`) AS doomed`, args...).Scan(&n); err != nil {
			return err
		}
		return deleteSources(ctx, tx, query, args...)
	})
	if err != nil {
		return 0, fmt.Errorf("remove %s: %w", what, err)
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return n, nil
}

// Reindex ingests again every source of the knowledge base kb (all when
// empty), keeping each one's tags: changed files and pages are chunked
// again, unchanged ones cost a stat, and files that are gone are removed.
func (k *KB) Reindex(ctx context.Context, kb string, progress func(Progress)) (Report, error) {
	list, err := k.Sources(ctx, kb)
	if err != nil {
		return Report{}, err
	}
	in := ingest{k: k, req: AddRequest{Progress: progress}, start: k.clock.Now()}
	if err := in.prepare(ctx); err != nil {
		return in.rep, err
	}
	defer in.finish(ctx)
	for _, s := range list {
		if err := ctx.Err(); err != nil {
			return in.rep, err
		}
		req := AddRequest{KB: s.KB, Tags: s.Tags}
		switch {
		case isURL(s.URI):
			in.record(k.addURL(ctx, req, s.URI))
		default:
			if _, err := os.Stat(s.URI); errors.Is(err, os.ErrNotExist) {
				if err := k.removeSource(ctx, s.KB, s.URI); err != nil {
					return in.rep, err
				}
				in.rep.Sources = append(in.rep.Sources, SourceReport{URI: s.URI, Status: Removed})
				continue
			}
			in.record(k.addFile(ctx, req, s.URI))
		}
	}
	// Chunks an earlier ingest could not embed (the endpoint was down,
	// or the embedding model was configured later) are embedded too.
	in.embed(ctx)
	return in.rep, nil
}

// DropVectors deletes every stored vector and the index, so the next
// Reindex embeds every chunk again: for a model that changed under the
// same name, or one served differently.
func (k *KB) DropVectors(ctx context.Context) error {
	return k.writeTx(ctx, "drop vectors", func(tx *sql.Tx) error {
		for _, q := range []string{`DELETE FROM kb_vectors`, `DELETE FROM kb_cells`, `DELETE FROM kb_embedding`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("drop vectors: %w", err)
			}
		}
		return nil
	})
}
