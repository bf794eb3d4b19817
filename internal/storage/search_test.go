package storage_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/postgres"
	"github.com/hermes-go/hermes/internal/session/storetest"
	"github.com/hermes-go/hermes/internal/storage"
)

// TestMigratedSearchMatchesSQLite migrates a home of 100,000 generated
// messages (5,000 with -short; it does not run under the race detector)
// and searches both stores for English words, CJK phrases, substrings
// and 2-character CJK words: PostgreSQL's session store must find in the
// copy what SQLite's finds in state.db.
func TestMigratedSearchMatchesSQLite(t *testing.T) {
	if raceDetector {
		t.Skip("writing the corpus to SQLite takes minutes under the race detector; the other tests run Migrate under it")
	}
	want := 100_000
	if testing.Short() {
		want = 5_000
	}
	h := newHome(t)
	corpus := storetest.NewCorpus(24)
	n := 0
	start := time.Now()
	for n < want {
		s := corpus.NewSession()
		if err := h.store.Create(t.Context(), s); err != nil {
			t.Fatal(err)
		}
		var msgs []*session.Message
		for range 2 {
			msgs = append(msgs, corpus.Turn()...)
		}
		if err := h.store.Append(t.Context(), s.ID, msgs...); err != nil {
			t.Fatal(err)
		}
		n += len(msgs)
	}
	t.Logf("wrote %d messages to state.db in %v", n, time.Since(start).Round(time.Millisecond))
	dst := h.dst(t)
	start = time.Now()
	r, err := storage.Migrate(t.Context(), h.src, dst, storage.Options{})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	took, rows := time.Since(start), copiedRows(r)
	t.Logf("migrated %d rows (%d messages) in %v, verification included: %.0f rows/s", rows, n,
		took.Round(time.Millisecond), float64(rows)/took.Seconds())

	pg, err := postgres.New(dst, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	search := func(s session.Store, q string, limit int) []int64 {
		t.Helper()
		hits, err := s.Search(t.Context(), q, session.SearchOptions{Limit: limit})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		ids := make([]int64, len(hits))
		for i, h := range hits {
			ids[i] = h.MessageID
		}
		return ids
	}
	// Words and CJK phrases: both stores rank by BM25, SQLite counting a
	// match in tool calls' JSON for less than one in the text, so the
	// copy must give the same best hit and nearly the same top ten.
	for _, q := range []string{"kubernetes", "pprof allocation", "nginx certificate", "数据库迁移", "性能优化", "镜像构建"} {
		a, b := search(h.store, q, 10), search(pg, q, 10)
		if len(a) == 0 || len(b) == 0 || a[0] != b[0] || shared(a, b) < 8 {
			t.Errorf("search %q: top hits differ:\n  sqlite   %v\n  postgres %v", q, a, b)
		}
	}
	// Substrings and 2-character CJK words: the stores rank these
	// differently (SQLite's own ranking of its trigram and scan matches),
	// so each store's top hits must be among the other's matches.
	for _, q := range []string{"ubernete", "迁移", "账单", "快照"} {
		a, b := search(h.store, q, 10), search(pg, q, 10)
		allA, allB := search(h.store, q, 1000), search(pg, q, 1000)
		if len(a) == 0 || len(b) == 0 || !subset(a, allB) || !subset(b, allA) {
			t.Errorf("search %q: top hits of one store are not matches in the other:\n  sqlite   %v\n  postgres %v", q, a, b)
		}
	}
}

// shared is how many ids of a are in b.
func shared(a, b []int64) int {
	n := 0
	for _, id := range a {
		if slices.Contains(b, id) {
			n++
		}
	}
	return n
}

// subset reports whether every id of a is in b.
func subset(a, b []int64) bool { return shared(a, b) == len(a) }
