package kb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
)

// maintainIndex keeps the vector index fitting the vectors stored: it
// is built when they reach indexAbove, trained again when they have
// doubled or halved since it was (its cells would otherwise grow
// unequal and slow), and dropped when they fall below indexAbove. It
// runs at the end of an ingest; it reports whether it trained.
func (k *KB) maintainIndex(ctx context.Context) (bool, error) {
	if k.opts.Embedder == nil {
		return false, nil
	}
	r := k.db.Reader()
	e, err := readEmbedding(ctx, r)
	if err != nil || !e.ok {
		return false, err
	}
	var count int
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM kb_vectors`).Scan(&count); err != nil {
		return false, fmt.Errorf("count vectors: %w", err)
	}
	switch {
	case count < indexAbove && e.trainedOn == 0:
		return false, nil
	case count < indexAbove:
		return false, k.writeTx(ctx, "drop the vector index", func(tx *sql.Tx) error {
			for _, q := range []string{`DELETE FROM kb_cells`, `UPDATE kb_vectors SET cell = 0 WHERE cell != 0`, `UPDATE kb_embedding SET trained_on = 0`} {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("drop the vector index: %w", err)
				}
			}
			return nil
		})
	case e.trainedOn > 0 && count < 2*e.trainedOn && 2*count > e.trainedOn:
		return false, nil
	}
	return true, k.train(ctx, count)
}

// train builds the index over the count vectors stored: k-means on a
// sample, then every vector's cell. The centroids and the cells are
// computed from a read, outside the write lock; one transaction then
// replaces the cells and moves every vector to its new cell, including
// any stored meanwhile, so a search sees the old index or the new one
// whole. New cells take ids above the old ones, which is how the
// transaction tells a vector it has moved from one it has not.
func (k *KB) train(ctx context.Context, count int) error {
	nlist := cellsFor(count)
	// A fixed seed per size: the same vectors give the same index.
	rng := rand.New(rand.NewPCG(uint64(count), uint64(nlist)))
	sample, err := k.sampleVectors(ctx, samplePerCell*nlist, rng)
	if err != nil {
		return err
	}
	cents, err := kmeans(ctx, sample, nlist, rng)
	if err != nil {
		return err
	}
	sample = nil
	var base int64
	if err := k.db.Reader().QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM kb_cells`).Scan(&base); err != nil {
		return fmt.Errorf("read the vector index: %w", err)
	}
	cells := make([]cell, len(cents))
	for i, c := range cents {
		cells[i] = cell{id: base + int64(i) + 1, centroid: c}
	}
	var ids, to []int64
	var buf []float32
	err = k.eachVector(ctx, k.db.Reader(), `SELECT chunk, vector FROM kb_vectors`, func(id int64, blob []byte) {
		buf = decodeInto(buf, blob)
		ids, to = append(ids, id), append(to, nearestCell(cells, buf))
	})
	if err != nil {
		return err
	}
	return k.writeTx(ctx, "train the vector index", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM kb_cells`); err != nil {
			return fmt.Errorf("replace the vector index: %w", err)
		}
		for _, c := range cells {
			if _, err := tx.ExecContext(ctx, `INSERT INTO kb_cells (id, centroid) VALUES (?, ?)`, c.id, encodeVector(c.centroid)); err != nil {
				return fmt.Errorf("replace the vector index: %w", err)
			}
		}
		stmt, err := tx.PrepareContext(ctx, `UPDATE kb_vectors SET cell = ? WHERE chunk = ?`)
		if err != nil {
			return fmt.Errorf("assign vectors to cells: %w", err)
		}
		defer stmt.Close()
		for i, id := range ids {
			if _, err := stmt.ExecContext(ctx, to[i], id); err != nil {
				return fmt.Errorf("assign vectors to cells: %w", err)
			}
		}
		// Vectors stored since the read above still name an old cell.
		var late []int64
		var lateTo []int64
		err = k.eachVector(ctx, tx, `SELECT chunk, vector FROM kb_vectors WHERE cell <= ?`, func(id int64, blob []byte) {
			buf = decodeInto(buf, blob)
			late, lateTo = append(late, id), append(lateTo, nearestCell(cells, buf))
		}, base)
		if err != nil {
			return err
		}
		for i, id := range late {
			if _, err := stmt.ExecContext(ctx, lateTo[i], id); err != nil {
				return fmt.Errorf("assign vectors to cells: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE kb_embedding SET trained_on = ?`, count); err != nil {
			return fmt.Errorf("record the vector index: %w", err)
		}
		return nil
	})
}

// sampleVectors reads up to n of the stored vectors, drawn evenly by
// reservoir sampling in one pass.
func (k *KB) sampleVectors(ctx context.Context, n int, rng *rand.Rand) ([][]float32, error) {
	var out [][]float32
	seen := 0
	err := k.eachVector(ctx, k.db.Reader(), `SELECT chunk, vector FROM kb_vectors`, func(_ int64, blob []byte) {
		seen++
		switch {
		case len(out) < n:
			out = append(out, decodeVector(blob))
		default:
			if j := rng.IntN(seen); j < n {
				out[j] = decodeInto(out[j], blob)
			}
		}
	})
	return out, err
}

// eachVector calls f with every (chunk, vector) row query selects. The
// blob is valid only during the call: rows are read in place, without a
// copy each.
func (k *KB) eachVector(ctx context.Context, q querier, query string, f func(id int64, blob []byte), args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	var blob sql.RawBytes
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &blob); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		f(id, blob)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	return nil
}

// VectorStats says what the knowledge bases hold in vectors.
type VectorStats struct {
	Model   string // the model that made them ("" before any)
	Dims    int
	Vectors int
	Chunks  int // every chunk, embedded or not
	Cells   int // the index's cells; 0 while search is exact
}

// Vectors reports the stored vectors and the index.
func (k *KB) Vectors(ctx context.Context) (VectorStats, error) {
	r := k.db.Reader()
	e, err := readEmbedding(ctx, r)
	if err != nil {
		return VectorStats{}, err
	}
	st := VectorStats{Model: e.model, Dims: e.dims}
	err = r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM kb_vectors), (SELECT count(*) FROM kb_chunks), (SELECT count(*) FROM kb_cells)`).
		Scan(&st.Vectors, &st.Chunks, &st.Cells)
	if err != nil {
		return VectorStats{}, fmt.Errorf("count vectors: %w", err)
	}
	return st, nil
}
