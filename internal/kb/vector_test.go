package kb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// synonymEmbedder embeds with llmtest.Embed after mapping words to a
// common one, so it sees a paraphrase the way an embedding model does
// while BM25, which matches words, does not. It fails while down is set.
type synonymEmbedder struct {
	mu    sync.Mutex
	down  bool
	calls int
	texts int
}

var synonyms = strings.NewReplacer("automobile", "car", "vehicle", "car", "cover", "insurance", "policy", "insurance")

func (e *synonymEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.down {
		return nil, errors.New("llm: emb: server (503): overloaded")
	}
	e.calls++
	e.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = llmtest.Embed(synonyms.Replace(strings.ToLower(t)))
	}
	return out, nil
}

func vectorFixture(t *testing.T, backend string, emb *synonymEmbedder) (*KB, string) {
	t.Helper()
	k := openKB(t, backend, Options{Embedder: emb})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"car.md":    "# Fleet\nEvery car in the fleet carries insurance from Acme Mutual, renewed each March.\n",
		"leave.md":  "# Leave\nAnnual leave is twenty-five days; carry-over needs approval.\n",
		"deploy.md": "# Deploy\nThe gateway is deployed with a rolling restart behind the load balancer.\n",
	})
	if _, err := k.Add(t.Context(), AddRequest{Sources: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	return k, dir
}

// TestVectorSearchFindsParaphrase: a query sharing no word with the
// passage is missed by BM25 and found by the vectors, and fusion keeps
// what each ranker found alone.
func TestVectorSearchFindsParaphrase(t *testing.T) { eachBackend(t, testVectorSearchFindsParaphrase) }

func testVectorSearchFindsParaphrase(t *testing.T, backend string) {
	emb := &synonymEmbedder{}
	k, _ := vectorFixture(t, backend, emb)
	q := Query{Text: "automobile policy", Limit: 5}
	if list, err := (bm25Ranker{k: k}).Rank(t.Context(), q, 10); err != nil || len(list) != 0 {
		t.Fatalf("BM25 found %v (%v); the query should share no word with the corpus", list, err)
	}
	res, err := results(k.Search(t.Context(), q))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || filepath.Base(res[0].Source) != "car.md" || res[0].BM25 != 0 {
		t.Fatalf("results %+v, want car.md first, found by vectors alone", res)
	}
	// "rolling restart" is BM25's; "automobile cover" the vectors'.
	res, err = results(k.Search(t.Context(), Query{Text: "rolling restart automobile cover", Limit: 2}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range res {
		got[filepath.Base(r.Source)] = true
	}
	if !got["deploy.md"] || !got["car.md"] {
		t.Errorf("fusion kept %v, want deploy.md and car.md", got)
	}
	// Filters hold for the vector ranker too.
	res, err = results(k.Search(t.Context(), Query{Text: "automobile policy", KB: "other"}))
	if err != nil || len(res) != 0 {
		t.Errorf("kb filter: %+v %v", res, err)
	}
}

// TestEmbedFailureKeepsTextAndReindexFills: chunks written while the
// embedder fails are found by BM25, the report says why they have no
// vector, and a reindex embeds them.
func TestEmbedFailureKeepsTextAndReindexFills(t *testing.T) {
	eachBackend(t, testEmbedFailureKeepsTextAndReindexFills)
}

func testEmbedFailureKeepsTextAndReindexFills(t *testing.T, backend string) {
	emb := &synonymEmbedder{down: true}
	k := openKB(t, backend, Options{Embedder: emb})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"car.md": "# Fleet\nEvery car carries insurance from Acme Mutual.\n"})
	rep, err := k.Add(t.Context(), AddRequest{Sources: []string{dir}})
	if err != nil || len(rep.Sources) != 1 || rep.Sources[0].Status != Added {
		t.Fatalf("%+v %v", rep, err)
	}
	if e := rep.EmbedErr; e == nil || !strings.Contains(e.Error(), "overloaded") || !strings.Contains(e.Error(), "reindex") {
		t.Errorf("EmbedErr %v, want the server's error and reindex suggested", e)
	}
	list, err := (bm25Ranker{k: k}).Rank(t.Context(), Query{Text: "Acme Mutual"}, 5)
	if err != nil || len(list) != 1 {
		t.Fatalf("BM25 after a failed embedding: %v %v", list, err)
	}
	if n := countVectors(t, k); n != 0 {
		t.Fatalf("%d vectors stored while the embedder was down", n)
	}
	emb.mu.Lock()
	emb.down = false
	emb.mu.Unlock()
	rep, err = k.Reindex(t.Context(), "", nil)
	if err != nil || rep.EmbedErr != nil {
		t.Fatalf("reindex: %v %v", err, rep.EmbedErr)
	}
	if n := countVectors(t, k); n != 1 {
		t.Fatalf("%d vectors after reindex, want 1", n)
	}
	res, err := results(k.Search(t.Context(), Query{Text: "automobile policy"}))
	if err != nil || len(res) != 1 {
		t.Errorf("vector search after reindex: %+v %v", res, err)
	}
}

// TestEmbedInBatches: a source of many chunks is embedded embedBatch at
// a time, and each vector is stored as little-endian float32s of unit
// length.
func TestEmbedInBatches(t *testing.T) { eachBackend(t, testEmbedInBatches) }

func testEmbedInBatches(t *testing.T, backend string) {
	emb := &synonymEmbedder{}
	k := openKB(t, backend, Options{Embedder: emb, Chunk: ChunkOptions{Target: 20}})
	dir := t.TempDir()
	var b strings.Builder
	for i := range 200 {
		b.WriteString("## Section\n\nparagraph with words about topic number ")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString(" and more filler words to pad it out.\n\n")
	}
	writeFiles(t, dir, map[string]string{"long.md": b.String()})
	rep, err := k.Add(t.Context(), AddRequest{Sources: []string{dir}})
	if err != nil || rep.EmbedErr != nil {
		t.Fatalf("%+v %v", rep, err)
	}
	chunks := rep.Chunks
	if chunks <= embedBatch {
		t.Fatalf("only %d chunks; the test needs more than one batch", chunks)
	}
	if want := (chunks + embedBatch - 1) / embedBatch; emb.calls != want || emb.texts != chunks {
		t.Errorf("%d calls for %d texts, want %d calls for %d", emb.calls, emb.texts, want, chunks)
	}
	var blob []byte
	if err := k.db.Reader().QueryRowContext(t.Context(), `SELECT vector FROM kb_vectors LIMIT 1`).Scan(&blob); err != nil {
		t.Fatal(err)
	}
	v := decodeVector(blob)
	if len(v) != llmtest.EmbeddingDims {
		t.Fatalf("blob of %d bytes", len(blob))
	}
	if s, _ := dotBlob(v, blob); s < 0.999 || s > 1.001 {
		t.Errorf("stored vector has length² %f, want 1", s)
	}
}

func countVectors(t *testing.T, k *KB) int {
	t.Helper()
	var n int
	if err := k.db.Reader().QueryRowContext(t.Context(), `SELECT count(*) FROM kb_vectors`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSearchWithoutEmbedderDegrades: when the embedding server stops
// answering after ingest, a search still answers from BM25 and says that
// its vectors were left out; a cancelled search fails instead of passing
// for a degraded one.
func TestSearchWithoutEmbedderDegrades(t *testing.T) {
	eachBackend(t, testSearchWithoutEmbedderDegrades)
}

func testSearchWithoutEmbedderDegrades(t *testing.T, backend string) {
	emb := &synonymEmbedder{}
	k, _ := vectorFixture(t, backend, emb)
	emb.mu.Lock()
	emb.down = true
	emb.mu.Unlock()
	hits, err := k.Search(t.Context(), Query{Text: "Acme Mutual"})
	if err != nil {
		t.Fatalf("search with the embedder down: %v", err)
	}
	if len(hits.Results) == 0 || filepath.Base(hits.Results[0].Source) != "car.md" {
		t.Errorf("BM25 results: %+v", hits.Results)
	}
	if !strings.Contains(hits.Degraded, "overloaded") {
		t.Errorf("Degraded = %q, want the embedder's error", hits.Degraded)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := k.Search(ctx, Query{Text: "Acme Mutual"}); err == nil {
		t.Error("a cancelled search succeeded")
	}
}

// TestEmbedBatchesAcrossSources: a folder of many small files is
// embedded in full batches across files, not in one call per file, and
// progress counts the chunks embedded.
func TestEmbedBatchesAcrossSources(t *testing.T) { eachBackend(t, testEmbedBatchesAcrossSources) }

func testEmbedBatchesAcrossSources(t *testing.T, backend string) {
	emb := &synonymEmbedder{}
	k := openKB(t, backend, Options{Embedder: emb})
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 100 {
		files[fmt.Sprintf("note%03d.md", i)] = fmt.Sprintf("# Note %d\nA short note number %d.\n", i, i)
	}
	writeFiles(t, dir, files)
	embedded := 0
	rep, err := k.Add(t.Context(), AddRequest{Sources: []string{dir}, Progress: func(p Progress) { embedded = p.Embedded }})
	if err != nil || rep.EmbedErr != nil || rep.Chunks != 100 {
		t.Fatalf("%v %v, %d chunks", err, rep.EmbedErr, rep.Chunks)
	}
	if emb.calls != 2 || emb.texts != 100 || embedded != 100 {
		t.Errorf("%d calls for %d texts, progress %d; want 2 calls for 100 texts", emb.calls, emb.texts, embedded)
	}
}
