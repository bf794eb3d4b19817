package kb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// randomEmbedder returns a random vector of dims for every text.
type randomEmbedder struct {
	r    *rand.Rand
	dims int
}

func (e randomEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, e.dims)
		for d := range out[i] {
			out[i][d] = float32(e.r.NormFloat64())
		}
	}
	return out, nil
}

// BenchmarkVectorSearch100k ranks 100,000 chunks of 64-dimension vectors
// exactly against a query vector (the query's embedding call excluded):
// p50-ms and p99-ms are the latency percentiles of one ranking.
func BenchmarkVectorSearch100k(b *testing.B) {
	emb := randomEmbedder{r: rand.New(rand.NewPCG(5, 6)), dims: 64}
	k := openKB(b, Options{Embedder: emb})
	const n = 100_000
	err := k.db.WriteTx(context.Background(), "bench", func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO kb_bases (id, name, created_at) VALUES (1, 'bench', 0)`); err != nil {
			return err
		}
		stmt, err := tx.Prepare(`INSERT INTO kb_chunks (source, ordinal, heading, line_start, line_end, text, tokens, vector) VALUES (?, ?, '', 1, 10, 'x', 1, ?)`)
		if err != nil {
			return err
		}
		for s := range n / 50 {
			if _, err := tx.Exec(`INSERT INTO kb_sources (id, kb, uri, kind) VALUES (?, 1, ?, 'markdown')`, s+1, fmt.Sprintf("/docs/doc%05d.md", s)); err != nil {
				return err
			}
			vecs, _ := emb.Embed(context.Background(), make([]string, 50))
			for c, v := range vecs {
				if _, err := stmt.Exec(s+1, c, encodeVector(v)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	ranker := vectorRanker{k: k}
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		list, err := ranker.Rank(context.Background(), Query{Text: "q"}, 20)
		if err != nil || len(list) != 20 {
			b.Fatal(err, len(list))
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
