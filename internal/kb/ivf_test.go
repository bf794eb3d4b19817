package kb

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
)

// indexedFixture stores indexAbove vectors of 16 dimensions in topics,
// and trains the index.
func indexedFixture(t *testing.T, backend string) (*KB, *mixture) {
	t.Helper()
	m := newMixture(11, indexAbove/50, 16, 0.5)
	k := openKB(t, backend, Options{Embedder: &fixedEmbedder{m: m, vecs: map[string][]float32{}}})
	seedBare(t, k, indexAbove)
	seedVectors(t, k, m, indexAbove)
	trained, err := k.maintainIndex(t.Context())
	if err != nil || !trained {
		t.Fatalf("maintainIndex at %d vectors: trained %v, %v", indexAbove, trained, err)
	}
	return k, m
}

// TestIndexTrainedAndSearched: at indexAbove vectors the index is built,
// every vector is in one of its cells, and searching through it finds
// nearly all of what reading every vector finds.
func TestIndexTrainedAndSearched(t *testing.T) { eachBackend(t, testIndexTrainedAndSearched) }

func testIndexTrainedAndSearched(t *testing.T, backend string) {
	k, _ := indexedFixture(t, backend)
	ctx := t.Context()
	var cells, unassigned int
	if err := k.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM kb_cells`).Scan(&cells); err != nil {
		t.Fatal(err)
	}
	if err := k.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM kb_vectors WHERE cell NOT IN (SELECT id FROM kb_cells)`).Scan(&unassigned); err != nil {
		t.Fatal(err)
	}
	if cells != cellsFor(indexAbove) || unassigned != 0 {
		t.Fatalf("%d cells (want %d), %d vectors outside them", cells, cellsFor(indexAbove), unassigned)
	}
	ranker := vectorRanker{k: k}
	found, total := 0, 0
	for i := range 30 {
		q := Query{Text: strings.Repeat("q", i+1)}
		approx, err := ranker.Rank(ctx, q, 10)
		if err != nil || len(approx) != 10 {
			t.Fatalf("%v %d", err, len(approx))
		}
		tx, err := k.db.Reader().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		qv, _ := k.opts.Embedder.Embed(ctx, []string{q.Text})
		exact, err := ranker.scan(ctx, tx, q, normalize(qv[0]), nil, 10)
		tx.Rollback()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range exact {
			total++
			if slices.ContainsFunc(approx, func(a Ranked) bool { return a.Chunk == e.Chunk }) {
				found++
			}
		}
	}
	if r := float64(found) / float64(total); r < 0.9 {
		t.Errorf("recall@10 of the index against exact: %.3f, want at least 0.9", r)
	}
}

// TestIndexKeptUpToDate: a vector stored after training goes to its
// nearest cell; deleting chunks deletes their vectors; below indexAbove
// the index is dropped and search reads every vector again.
func TestIndexKeptUpToDate(t *testing.T) { eachBackend(t, testIndexKeptUpToDate) }

func testIndexKeptUpToDate(t *testing.T, backend string) {
	k, m := indexedFixture(t, backend)
	ctx := t.Context()
	err := k.db.WriteTx(ctx, "chunk", func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO kb_chunks (id, source, ordinal, text) VALUES (?, 1, 99, 'late')`, indexAbove+1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	v := m.vector(3)
	if err := k.storeVectors(ctx, []int64{indexAbove + 1}, [][]float32{v}); err != nil {
		t.Fatal(err)
	}
	cells, err := loadCells(ctx, k.db.Reader())
	if err != nil {
		t.Fatal(err)
	}
	var cell int64
	if err := k.db.Reader().QueryRowContext(ctx, `SELECT cell FROM kb_vectors WHERE chunk = ?`, indexAbove+1).Scan(&cell); err != nil {
		t.Fatal(err)
	}
	if want := nearestCell(cells, normalize(v)); cell != want || cell == 0 {
		t.Errorf("late vector in cell %d, want its nearest %d", cell, want)
	}
	// Remove half the sources: their vectors go with their chunks, and
	// the index, now too big for what is left, is dropped.
	err = k.db.WriteTx(ctx, "remove", func(tx *sql.Tx) error {
		return deleteSources(ctx, tx, `SELECT id FROM kb_sources WHERE id % 2 = 0`)
	})
	if err != nil {
		t.Fatal(err)
	}
	var left, orphans int
	k.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM kb_vectors`).Scan(&left)
	k.db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM kb_vectors WHERE chunk NOT IN (SELECT id FROM kb_chunks)`).Scan(&orphans)
	if left > indexAbove/2+1 || orphans != 0 {
		t.Fatalf("%d vectors left, %d without a chunk", left, orphans)
	}
	if _, err := k.maintainIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if cells, _ := loadCells(ctx, k.db.Reader()); len(cells) != 0 {
		t.Errorf("%d cells left below indexAbove", len(cells))
	}
	list, err := (vectorRanker{k: k}).Rank(ctx, Query{Text: "q"}, 5)
	if err != nil || len(list) != 5 {
		t.Errorf("exact search after the index was dropped: %v %v", list, err)
	}
}

// TestEmbeddingModelChange: vectors of one model are never compared
// with another's. A search under a new model answers from BM25 and says
// to reindex; the next ingest drops the old vectors with a note, and
// reindex embeds everything again with the new model.
func TestEmbeddingModelChange(t *testing.T) { eachBackend(t, testEmbeddingModelChange) }

func testEmbeddingModelChange(t *testing.T, backend string) {
	emb := &synonymEmbedder{}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"car.md":   "# Fleet\nEvery car in the fleet carries insurance from Acme Mutual.\n",
		"leave.md": "# Leave\nAnnual leave is twenty-five days.\n",
	})
	k := openKB(t, backend, Options{Embedder: emb, EmbedModel: "local/a"})
	if _, err := k.Add(t.Context(), AddRequest{Sources: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	k2 := New(k.db, Options{Clock: k.clock, Embedder: emb, EmbedModel: "local/b"})
	hits, err := k2.Search(t.Context(), Query{Text: "automobile Acme"})
	if err != nil || len(hits.Results) == 0 || !strings.Contains(hits.Degraded, "local/a") || !strings.Contains(hits.Degraded, "reindex") {
		t.Fatalf("search under another model: %+v %v", hits, err)
	}
	rep, err := k2.Reindex(t.Context(), "", nil)
	if err != nil || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "local/a") {
		t.Fatalf("reindex under another model: notes %q, %v", rep.Notes, err)
	}
	var model string
	var n int
	k.db.Reader().QueryRowContext(t.Context(), `SELECT model FROM kb_embedding`).Scan(&model)
	k.db.Reader().QueryRowContext(t.Context(), `SELECT count(*) FROM kb_vectors`).Scan(&n)
	if model != "local/b" || n != 2 {
		t.Errorf("after reindex: model %q, %d vectors; want local/b and 2", model, n)
	}
	if hits, err := k2.Search(t.Context(), Query{Text: "automobile"}); err != nil || hits.Degraded != "" || len(hits.Results) == 0 {
		t.Errorf("search after reindex: %+v %v", hits, err)
	}
}

// TestVectorsOfAnotherLengthRefused: a model that starts answering with
// vectors of another length under the same name is refused, not mixed.
func TestVectorsOfAnotherLengthRefused(t *testing.T) {
	eachBackend(t, testVectorsOfAnotherLengthRefused)
}

func testVectorsOfAnotherLengthRefused(t *testing.T, backend string) {
	k, _ := vectorFixture(t, backend, &synonymEmbedder{})
	err := k.storeVectors(context.Background(), []int64{1}, [][]float32{{1, 2, 3}})
	if err == nil || !strings.Contains(err.Error(), "--reembed") {
		t.Errorf("vectors of 3 dimensions stored beside longer ones: %v", err)
	}
}
