package kb

import (
	"context"
	"database/sql"
	"fmt"
)

// embedMissing embeds the chunks without a vector, of the source uri of
// the knowledge base kb, or of every source when uri is empty, in
// batches of embedBatch. It runs after the chunks are written, so a
// failed call leaves their text searchable by BM25 and a later reindex
// fills what is missing. It returns how many chunks got a vector.
func (k *KB) embedMissing(ctx context.Context, kb, uri string) (int, error) {
	if k.opts.Embedder == nil {
		return 0, nil
	}
	done := 0
	// after keeps the scan moving past chunks a batch could not fill.
	var after int64
	for {
		ids, texts, err := k.unembedded(ctx, kb, uri, after)
		if err != nil || len(ids) == 0 {
			return done, err
		}
		vecs, err := k.opts.Embedder.Embed(ctx, texts)
		if err != nil {
			return done, fmt.Errorf("embed chunks: %w", err)
		}
		if len(vecs) != len(ids) {
			return done, fmt.Errorf("embed chunks: got %d vectors for %d texts", len(vecs), len(ids))
		}
		err = k.db.WriteTx(ctx, "store vectors", func(tx *sql.Tx) error {
			for i, id := range ids {
				if _, err := tx.ExecContext(ctx, `UPDATE kb_chunks SET vector = ? WHERE id = ?`, encodeVector(vecs[i]), id); err != nil {
					return fmt.Errorf("store vectors: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return done, err
		}
		done += len(ids)
		after = ids[len(ids)-1]
	}
}

// unembedded reads the next batch of chunks without a vector, by id.
func (k *KB) unembedded(ctx context.Context, kb, uri string, after int64) ([]int64, []string, error) {
	rows, err := k.db.Reader().QueryContext(ctx, `
SELECT c.id, c.heading, c.text FROM kb_chunks c
JOIN kb_sources s ON s.id = c.source JOIN kb_bases b ON b.id = s.kb
WHERE c.vector IS NULL AND c.id > ?1 AND (?2 = '' OR (b.name = ?3 AND s.uri = ?2))
ORDER BY c.id LIMIT ?4`, after, uri, kb, embedBatch)
	if err != nil {
		return nil, nil, fmt.Errorf("read chunks to embed: %w", err)
	}
	defer rows.Close()
	var ids []int64
	var texts []string
	for rows.Next() {
		var id int64
		var heading, text string
		if err := rows.Scan(&id, &heading, &text); err != nil {
			return nil, nil, fmt.Errorf("read chunks to embed: %w", err)
		}
		if heading != "" {
			// The heading path says what the passage is about, which
			// the passage itself may never name.
			text = heading + "\n\n" + text
		}
		ids, texts = append(ids, id), append(texts, text)
	}
	return ids, texts, rows.Err()
}
