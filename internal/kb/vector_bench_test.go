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

// mixture draws vectors around topics, as a real embedding model's
// vectors of many documents fall: each topic is a random direction, and
// a vector is its topic's direction plus noise of spread times its
// size (0.7 puts a chunk at a cosine of about 0.8 from its topic; with
// spread 0 topics don't matter and every vector is random, the worst
// case for an index).
type mixture struct {
	r      *rand.Rand
	topics [][]float32
	spread float64
	dims   int
}

func newMixture(seed uint64, topics, dims int, spread float64) *mixture {
	m := &mixture{r: rand.New(rand.NewPCG(seed, seed+1)), spread: spread, dims: dims}
	for range topics {
		m.topics = append(m.topics, m.gauss(1))
	}
	return m
}

func (m *mixture) gauss(sigma float64) []float32 {
	v := make([]float32, m.dims)
	for i := range v {
		v[i] = float32(m.r.NormFloat64() * sigma)
	}
	return v
}

// vector draws a vector of topic t (a random one when spread is 0).
func (m *mixture) vector(t int) []float32 {
	if m.spread == 0 {
		return m.gauss(1)
	}
	v := m.gauss(m.spread)
	for i, x := range m.topics[t%len(m.topics)] {
		v[i] += x
	}
	return v
}

// Embed embeds each text as a vector of a random topic: the queries of
// the benchmarks.
func (m *mixture) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = m.vector(m.r.IntN(len(m.topics)))
	}
	return out, nil
}

// seedVectors gives each of the first n chunks a vector of the mixture,
// the chunks of one source sharing a topic, and records them as the
// model's. It does not train the index.
func seedVectors(b testing.TB, k *KB, m *mixture, n int) {
	err := k.db.WriteTx(context.Background(), "bench vectors", func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO kb_embedding (id, model, dims) VALUES (1, '', ?)`, m.dims); err != nil {
			return err
		}
		stmt, err := tx.Prepare(`INSERT INTO kb_vectors (chunk, vector) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		for id := 1; id <= n; id++ {
			if _, err := stmt.Exec(id, encodeVector(m.vector((id-1)/50))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// seedBare stores n chunks of one word under n/50 sources, for
// benchmarks of the vectors alone.
func seedBare(b testing.TB, k *KB, n int) {
	err := k.db.WriteTx(context.Background(), "bench", func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO kb_bases (id, name, created_at) VALUES (1, 'bench', 0)`); err != nil {
			return err
		}
		stmt, err := tx.Prepare(`INSERT INTO kb_chunks (source, ordinal, heading, line_start, line_end, text, tokens) VALUES (?, ?, '', 1, 10, 'x', 1)`)
		if err != nil {
			return err
		}
		for s := range n / 50 {
			if _, err := tx.Exec(`INSERT INTO kb_sources (id, kb, uri, kind) VALUES (?, 1, ?, 'markdown')`, s+1, fmt.Sprintf("/docs/doc%05d.md", s)); err != nil {
				return err
			}
			for c := range 50 {
				if _, err := stmt.Exec(s+1, c); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkVectorSearch100k ranks 100,000 vectors of 384 dimensions
// (a small embedding model's; 2,000 topics of 50 chunks) for the 20
// nearest a query, the query's embedding excluded: exactly, reading
// every vector, and through the index, reading the cells nearest the
// query. p50-ms and p99-ms are the latency percentiles of one ranking;
// recall@20 is the share of the exact 20 the index finds, over the
// queries run; train-s is the index's training. "random" is the same
// with vectors of no topic, the worst case for an index.
func BenchmarkVectorSearch100k(b *testing.B) {
	for _, c := range []struct {
		name   string
		spread float64
	}{{"topics", 0.7}, {"random", 0}} {
		b.Run(c.name, func(b *testing.B) {
			const n = 100_000
			m := newMixture(7, n/50, 384, c.spread)
			k := openKB(b, "sqlite", Options{Embedder: m})
			seedBare(b, k, n)
			seedVectors(b, k, m, n)
			queries := make([]Query, 50)
			exact := make([][]Ranked, len(queries))
			for i := range queries {
				queries[i] = Query{Text: fmt.Sprint(i)}
			}
			// The embedder draws at random: each query's vector is fixed
			// once, through a recording wrapper.
			rec := &fixedEmbedder{m: m, vecs: map[string][]float32{}}
			k.opts.Embedder = rec
			ranker := vectorRanker{k: k}
			for i, q := range queries {
				list, err := ranker.Rank(context.Background(), q, 20)
				if err != nil || len(list) != 20 {
					b.Fatal(err, len(list))
				}
				exact[i] = list
			}
			start := time.Now()
			if trained, err := k.maintainIndex(context.Background()); err != nil || !trained {
				b.Fatal("index not trained", err)
			}
			train := time.Since(start)
			found := 0
			for i, q := range queries {
				list, err := ranker.Rank(context.Background(), q, 20)
				if err != nil {
					b.Fatal(err)
				}
				for _, x := range list {
					if slices.ContainsFunc(exact[i], func(e Ranked) bool { return e.Chunk == x.Chunk }) {
						found++
					}
				}
			}
			var lat []time.Duration
			i := 0
			for b.Loop() {
				start := time.Now()
				if _, err := ranker.Rank(context.Background(), queries[i%len(queries)], 20); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				i++
			}
			reportLatency(b, lat)
			b.ReportMetric(float64(found)/float64(20*len(queries)), "recall@20")
			b.ReportMetric(train.Seconds(), "train-s")
		})
	}
}

// BenchmarkVectorSearchExact100k is BenchmarkVectorSearch100k's topics
// without the index: every vector read.
func BenchmarkVectorSearchExact100k(b *testing.B) {
	const n = 100_000
	m := newMixture(7, n/50, 384, 0.7)
	k := openKB(b, "sqlite", Options{Embedder: m})
	seedBare(b, k, n)
	seedVectors(b, k, m, n)
	k.opts.Embedder = &fixedEmbedder{m: m, vecs: map[string][]float32{}}
	ranker := vectorRanker{k: k}
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if _, err := ranker.Rank(context.Background(), Query{Text: fmt.Sprint(i % 50)}, 20); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		i++
	}
	reportLatency(b, lat)
}

// fixedEmbedder embeds each text once through m and then always alike.
type fixedEmbedder struct {
	m    *mixture
	vecs map[string][]float32
}

func (f *fixedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := f.vecs[t]
		if !ok {
			got, _ := f.m.Embed(ctx, []string{t})
			v = got[0]
			f.vecs[t] = v
		}
		out[i] = slices.Clone(v)
	}
	return out, nil
}

// reportLatency reports the percentiles of lat.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
