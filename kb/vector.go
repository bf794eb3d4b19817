package kb

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
)

// Embedder turns texts into vectors, one per text in order; an
// embeddings endpoint (openai.Embeddings) is one. Vectors of one
// embedder must all have the same length.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// embedBatch is the most chunks embedded in one call: a failure costs at
// most this many, and the texts of a batch stay in memory.
const embedBatch = 64

// encodeVector stores v normalized to length 1, as little-endian
// float32s, so that a similarity is a dot product.
func encodeVector(v []float32) []byte {
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	norm = math.Sqrt(norm)
	if norm == 0 {
		norm = 1
	}
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(float64(x)/norm)))
	}
	return out
}

// dotBlob is the dot product of q with the vector encoded in blob; 0 when
// their lengths differ (a vector of another model).
func dotBlob(q []float32, blob []byte) (float64, bool) {
	if len(blob) != 4*len(q) {
		return 0, false
	}
	var s float32
	for i, x := range q {
		s += x * math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
	}
	return float64(s), true
}

// vectorRanker ranks chunks by the cosine similarity of their vectors to
// the query's, exactly: every vector of the knowledge bases searched is
// read, and a heap keeps the best n.
type vectorRanker struct {
	k *KB
}

// Rank implements Ranker.
func (v vectorRanker) Rank(ctx context.Context, q Query, n int) ([]Ranked, error) {
	vecs, err := v.k.opts.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("embed the query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed the query: got %d vectors for 1 text", len(vecs))
	}
	qv := decodeVector(encodeVector(vecs[0]))
	query := `SELECT id, vector FROM kb_chunks WHERE vector IS NOT NULL`
	cond, args := q.filter()
	if cond != "" {
		// The joins cost time on every row: only a filter pays for them.
		query = `
SELECT c.id, c.vector FROM kb_chunks c
JOIN kb_sources s ON s.id = c.source JOIN kb_bases b ON b.id = s.kb
WHERE c.vector IS NOT NULL` + cond
	}
	rows, err := v.k.db.Reader().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	defer rows.Close()
	h := make(rankHeap, 0, n+1)
	// RawBytes reads each blob in place, without a copy per row.
	var blob sql.RawBytes
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		s, ok := dotBlob(qv, blob)
		if !ok {
			continue
		}
		if len(h) < n {
			heap.Push(&h, Ranked{Chunk: id, Score: s})
		} else if s > h[0].Score {
			h[0] = Ranked{Chunk: id, Score: s}
			heap.Fix(&h, 0)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	out := make([]Ranked, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Ranked)
	}
	return out, nil
}

// decodeVector undoes encodeVector.
func decodeVector(blob []byte) []float32 {
	out := make([]float32, len(blob)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
	}
	return out
}

// rankHeap is a min-heap of Ranked by score, so the worst of the best n
// is at the top to be replaced.
type rankHeap []Ranked

func (h rankHeap) Len() int           { return len(h) }
func (h rankHeap) Less(i, j int) bool { return h[i].Score < h[j].Score }
func (h rankHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)        { *h = append(*h, x.(Ranked)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
