package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// querier is what reads run on: the database's reader pool or a
// transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// embedding is kb_embedding's row: which model made the stored vectors,
// their length, and how many vectors the index was trained on (0: no
// index).
type embedding struct {
	model     string
	dims      int
	trainedOn int
	ok        bool // false: nothing embedded yet
}

// readEmbedding reads kb_embedding's row.
func readEmbedding(ctx context.Context, q querier) (embedding, error) {
	var e embedding
	err := q.QueryRowContext(ctx, `SELECT model, dims, trained_on FROM kb_embedding WHERE id = 1`).Scan(&e.model, &e.dims, &e.trainedOn)
	if errors.Is(err, sql.ErrNoRows) {
		return embedding{}, nil
	}
	if err != nil {
		return embedding{}, fmt.Errorf("read the embedding model of the knowledge base: %w", err)
	}
	e.ok = true
	return e, nil
}

// prepareVectors runs before an ingest embeds anything: when the stored
// vectors were made by another model than the configured one, they are
// dropped (with the index), since a similarity between vectors of two
// models means nothing. It returns a note saying so, "" when nothing was
// dropped.
func (k *KB) prepareVectors(ctx context.Context) (string, error) {
	if k.opts.Embedder == nil {
		return "", nil
	}
	e, err := readEmbedding(ctx, k.db.Reader())
	if err != nil || !e.ok || e.model == k.opts.EmbedModel {
		return "", err
	}
	if e.model == "" {
		// Vectors stored before the model was recorded: the configured
		// model is the only one they can have come from.
		return "", k.writeTx(ctx, "record the embedding model", func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE kb_embedding SET model = ? WHERE id = 1 AND model = ''`, k.opts.EmbedModel)
			return err
		})
	}
	if err := k.DropVectors(ctx); err != nil {
		return "", err
	}
	return fmt.Sprintf("the embedding model is now %s: the vectors %s made were dropped; hermes kb reindex embeds every source again", k.opts.EmbedModel, e.model), nil
}

// embedMissing embeds the chunks without a vector, in batches of
// embedBatch, calling progress with each batch's size. It runs after the
// chunks are written, so a failed call leaves their text searchable by
// BM25 and a later reindex fills what is missing. It returns how many
// chunks got a vector.
func (k *KB) embedMissing(ctx context.Context, progress func(n int)) (int, error) {
	if k.opts.Embedder == nil {
		return 0, nil
	}
	done := 0
	// after keeps the scan moving past chunks a batch could not fill.
	var after int64
	for {
		ids, texts, err := k.unembedded(ctx, after)
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
		if err := k.storeVectors(ctx, ids, vecs); err != nil {
			return done, err
		}
		done += len(ids)
		after = ids[len(ids)-1]
		progress(len(ids))
	}
}

// storeVectors stores the vectors of chunks ids, each in its nearest
// cell of the index when there is one, and records the model and the
// length of the first vectors stored. Vectors of another length than
// the stored ones are refused: the model changed under the same name.
func (k *KB) storeVectors(ctx context.Context, ids []int64, vecs [][]float32) error {
	return k.writeTx(ctx, "store vectors", func(tx *sql.Tx) error {
		e, err := readEmbedding(ctx, tx)
		if err != nil {
			return err
		}
		dims := len(vecs[0])
		for _, v := range vecs {
			if len(v) != dims || dims == 0 {
				return fmt.Errorf("embed chunks: %s returned vectors of %d and %d dimensions in one answer", k.opts.EmbedModel, dims, len(v))
			}
		}
		switch {
		case !e.ok:
			if _, err := tx.ExecContext(ctx, `INSERT INTO kb_embedding (id, model, dims) VALUES (1, ?, ?)`, k.opts.EmbedModel, dims); err != nil {
				return fmt.Errorf("record the embedding model: %w", err)
			}
		case e.dims != dims:
			return fmt.Errorf("embed chunks: %s returned vectors of %d dimensions, the stored ones have %d: the model changed; hermes kb reindex --reembed embeds everything again", k.opts.EmbedModel, dims, e.dims)
		}
		cells, err := loadCells(ctx, tx)
		if err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO kb_vectors (chunk, cell, vector) VALUES (?, ?, ?)
ON CONFLICT (chunk) DO UPDATE SET cell = excluded.cell, vector = excluded.vector`)
		if err != nil {
			return fmt.Errorf("store vectors: %w", err)
		}
		defer stmt.Close()
		for i, id := range ids {
			blob := encodeVector(vecs[i])
			if _, err := stmt.ExecContext(ctx, id, nearestCell(cells, decodeVector(blob)), blob); err != nil {
				return fmt.Errorf("store vectors: %w", err)
			}
		}
		return nil
	})
}

// unembedded reads the next batch of chunks without a vector, by id.
func (k *KB) unembedded(ctx context.Context, after int64) ([]int64, []string, error) {
	rows, err := k.db.Reader().QueryContext(ctx, `
SELECT c.id, c.heading, c.text FROM kb_chunks c
WHERE c.id > ? AND NOT EXISTS (SELECT 1 FROM kb_vectors v WHERE v.chunk = c.id)
ORDER BY c.id LIMIT ?`, after, embedBatch)
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
