package kb

import (
	"container/heap"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// queryEmbedTimeout bounds the embedding of a query.
const queryEmbedTimeout = 10 * time.Second

// vectorRanker ranks chunks by the cosine similarity of their vectors to
// the query's: exactly over every vector while there is no index, else
// over the vectors of the cells nearest the query (see ivf.go).
type vectorRanker struct {
	k *KB
}

// Rank implements Ranker. A knowledge base with no vectors yet ranks
// nothing; vectors of another model than the configured one are an
// error (Search then answers from BM25 and says why).
func (v vectorRanker) Rank(ctx context.Context, q Query, n int) ([]Ranked, error) {
	e, err := readEmbedding(ctx, v.k.db.Reader())
	if err != nil || !e.ok {
		return nil, err
	}
	if e.model != "" && e.model != v.k.opts.EmbedModel {
		return nil, fmt.Errorf("the stored vectors were made by %s, not %s: hermes kb reindex embeds them again", e.model, v.k.opts.EmbedModel)
	}
	// The query is embedded before the read below begins: a snapshot held
	// across a slow HTTP call would hold back the database's checkpoints.
	// A hung embedding server costs a search its vectors after
	// queryEmbedTimeout, not the turn that searches.
	ectx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	vecs, err := v.k.opts.Embedder.Embed(ectx, []string{q.Text})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("embed the query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed the query: got %d vectors for 1 text", len(vecs))
	}
	if len(vecs[0]) != e.dims {
		return nil, fmt.Errorf("embed the query: %s returned %d dimensions, the stored vectors have %d: hermes kb reindex --reembed embeds them again", v.k.opts.EmbedModel, len(vecs[0]), e.dims)
	}
	qv := normalize(vecs[0])
	// One snapshot for the cells and the vectors, so a training that
	// commits in between cannot pair old cells with new assignments.
	tx, err := v.k.db.Reader().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	defer tx.Rollback()
	cells, err := loadCells(ctx, tx)
	if err != nil {
		return nil, err
	}
	if len(cells) == 0 {
		return v.scan(ctx, tx, q, qv, nil, n)
	}
	// Cell 0 holds vectors stored while there was no index, should any
	// be left.
	probe := append(nearestCells(cells, qv, probesFor(len(cells))), 0)
	list, err := v.scan(ctx, tx, q, qv, probe, n)
	if err != nil || len(list) == n {
		return list, err
	}
	if cond, _ := q.filter(v.k.db.Dialect()); cond != "" {
		// A filter can leave the nearest cells with too few of its
		// chunks; its chunks are then few enough to read them all.
		return v.scan(ctx, tx, q, qv, nil, n)
	}
	return list, nil
}

// scan ranks the vectors of the cells probe (all when nil) matching q's
// filter against qv, keeping the best n in a heap.
func (v vectorRanker) scan(ctx context.Context, tx *sql.Tx, q Query, qv []float32, probe []int64, n int) ([]Ranked, error) {
	var where []string
	var args []any
	if probe != nil {
		where = append(where, "v.cell IN (?"+strings.Repeat(",?", len(probe)-1)+")")
		for _, id := range probe {
			args = append(args, id)
		}
	}
	query := `SELECT v.chunk, v.vector FROM kb_vectors v`
	if cond, fargs := q.filter(v.k.db.Dialect()); cond != "" {
		// The joins cost time on every row: only a filter pays for them.
		query += ` JOIN kb_chunks c ON c.id = v.chunk JOIN kb_sources s ON s.id = c.source JOIN kb_bases b ON b.id = s.kb`
		where, args = append(where, strings.TrimPrefix(cond, " AND ")), append(args, fargs...)
	}
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	h := make(rankHeap, 0, n+1)
	err := v.k.eachVector(ctx, tx, query, func(id int64, blob []byte) {
		s, ok := dotBlob(qv, blob)
		if !ok {
			return
		}
		if len(h) < n {
			heap.Push(&h, Ranked{Chunk: id, Score: s})
		} else if s > h[0].Score {
			h[0] = Ranked{Chunk: id, Score: s}
			heap.Fix(&h, 0)
		}
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("vector search: %w", err)
	}
	out := make([]Ranked, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Ranked)
	}
	return out, nil
}
