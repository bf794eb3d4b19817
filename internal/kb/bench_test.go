package kb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchWords is the vocabulary of generated documents: common words
// repeat, rare ones make queries selective, as in real text.
func benchWords(r *rand.Rand, n int) string {
	common := []string{"the", "service", "deploy", "team", "config", "error", "request", "user", "data", "report", "build", "release"}
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "term%d", r.IntN(20000))
		} else {
			b.WriteString(common[r.IntN(len(common))])
		}
	}
	return b.String()
}

// benchMarkdown is a Markdown document of about size bytes, in sections
// under headings.
func benchMarkdown(r *rand.Rand, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Document %d\n\n", r.IntN(1000))
	for s := 0; b.Len() < size; s++ {
		fmt.Fprintf(&b, "## Section %d\n\n", s)
		for range 3 {
			b.WriteString(benchWords(r, 80))
			b.WriteString(".\n\n")
		}
	}
	return b.String()
}

// BenchmarkIngestMarkdown ingests a folder of 100 Markdown files of
// 40 KB each (4 MB) into a new state.db per iteration; MB/s is the
// ingest rate and db-bytes/text-byte the file's growth per byte of text.
func BenchmarkIngestMarkdown(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	dir := b.TempDir()
	total := 0
	for i := range 100 {
		doc := benchMarkdown(r, 40<<10)
		total += len(doc)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%03d.md", i)), []byte(doc), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(total))
	var growth float64
	for b.Loop() {
		k := openKB(b, "sqlite", Options{})
		rep, err := k.Add(context.Background(), AddRequest{Sources: []string{dir}})
		if err != nil || len(rep.Failed()) > 0 {
			b.Fatal(err, rep.Failed())
		}
		growth = dbBytes(b, k) / float64(total)
	}
	b.ReportMetric(growth, "db-bytes/text-byte")
}

// dbBytes is the size of k's database after a checkpoint.
func dbBytes(b *testing.B, k *KB) float64 {
	b.Helper()
	if _, err := k.db.Writer().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	var pages, size int64
	if err := k.db.Reader().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		b.Fatal(err)
	}
	if err := k.db.Reader().QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		b.Fatal(err)
	}
	return float64(pages * size)
}

// BenchmarkSearch100k searches 100,000 chunks of about 100 words (a
// tenth of them Chinese) with two-word queries: ns/op is the mean, p50-ms
// and p99-ms the latency percentiles.
func BenchmarkSearch100k(b *testing.B) {
	k := openKB(b, "sqlite", Options{})
	benchSearch(b, k, seedText(b, k, 100_000))
}

// BenchmarkHybridSearch100k is BenchmarkSearch100k with a vector of 384
// dimensions for every chunk (in topics, see mixture) and the index
// trained: each search fuses BM25 with the vectors. The query's
// embedding is computed in the process, so the figure is hermes's own.
func BenchmarkHybridSearch100k(b *testing.B) {
	const n = 100_000
	m := newMixture(9, n/50, 384, 0.7)
	k := openKB(b, "sqlite", Options{Embedder: m})
	queries := seedText(b, k, n)
	seedVectors(b, k, m, n)
	if trained, err := k.maintainIndex(context.Background()); err != nil || !trained {
		b.Fatal("index not trained", err)
	}
	benchSearch(b, k, queries)
}

// benchSearch runs Search over queries in turn, reporting latency
// percentiles.
func benchSearch(b *testing.B, k *KB, queries []string) {
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		hits, err := k.Search(context.Background(), Query{Text: queries[i%len(queries)]})
		if err != nil || hits.Degraded != "" {
			b.Fatal(err, hits.Degraded)
		}
		lat = append(lat, time.Since(start))
		i++
	}
	reportLatency(b, lat)
}

// seedText stores n chunks of about 100 words (a tenth with Chinese)
// under n/50 sources, and returns 200 queries of two words.
func seedText(b *testing.B, k *KB, n int) []string {
	r := rand.New(rand.NewPCG(3, 4))
	zh := []string{"数据库", "迁移", "脚本", "发布", "值班", "工程师", "备份", "存储", "网关", "重启"}
	err := k.db.WriteTx(context.Background(), "bench", func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO kb_bases (id, name, created_at) VALUES (1, 'bench', 0)`); err != nil {
			return err
		}
		stmt, err := tx.Prepare(`INSERT INTO kb_chunks (source, ordinal, heading, line_start, line_end, text, tokens) VALUES (?, ?, ?, 1, 10, ?, 130)`)
		if err != nil {
			return err
		}
		for s := range n / 50 {
			if _, err := tx.Exec(`INSERT INTO kb_sources (id, kb, uri, kind) VALUES (?, 1, ?, 'markdown')`, s+1, fmt.Sprintf("/docs/doc%05d.md", s)); err != nil {
				return err
			}
			for c := range 50 {
				text := benchWords(r, 100)
				if r.IntN(10) == 0 {
					text += " " + zh[r.IntN(len(zh))] + zh[r.IntN(len(zh))] + "，" + zh[r.IntN(len(zh))] + "。"
				}
				if _, err := stmt.Exec(s+1, c, fmt.Sprintf("Doc %d > Section %d", s, c), text); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	queries := make([]string, 200)
	for i := range queries {
		if i%10 == 0 {
			queries[i] = zh[r.IntN(len(zh))] + zh[r.IntN(len(zh))]
		} else {
			queries[i] = fmt.Sprintf("deploy term%d", r.IntN(20000))
		}
	}
	return queries
}
