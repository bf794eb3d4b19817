package storage_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/postgres"
	"github.com/hermes-go/hermes/internal/storage"
)

// TestMigrateCopiesSessions migrates sessions with CJK text, tool calls,
// NUL bytes and several text parts in small batches, and reads them back
// through the PostgreSQL session store exactly as SQLite's gives them.
func TestMigrateCopiesSessions(t *testing.T) {
	h := newHome(t)
	h.fill(t, 5)
	dst := h.dst(t)
	r, err := storage.Migrate(t.Context(), h.src, dst, storage.Options{Batch: 4})
	if err != nil {
		t.Fatalf("migrate: %v\n%+v", err, r)
	}
	copied := map[string]int64{}
	for _, tb := range r.Tables {
		copied[tb.Name] = tb.Copied
		if !tb.Match() {
			t.Errorf("table %s differs: %+v", tb.Name, tb)
		}
	}
	want := map[string]int64{"sessions": 5, "messages": 25, "usage_daily": 2, "session_leases": 1}
	for name, n := range want {
		if copied[name] != n {
			t.Errorf("copied %d rows of %s, want %d (report %+v)", copied[name], name, n, r.Tables)
		}
	}
	pg, err := postgres.New(dst, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := messages(t, pg, h.ids), messages(t, h.store, h.ids); !reflect.DeepEqual(got, want) {
		t.Fatalf("messages on postgres differ from state.db's:\n got %+v\nwant %+v", got[0], want[0])
	}
	for _, id := range h.ids {
		a, err := pg.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		b, err := h.store.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("session on postgres differs from state.db's:\n got %+v\nwant %+v", a, b)
		}
	}
	if p, _ := pg.Get(t.Context(), h.ids[0]); p.ParentID != h.ids[4] {
		t.Errorf("first session's parent is %q, want %q: the link to a later session was lost", p.ParentID, h.ids[4])
	}
	for _, q := range []string{"nginx", "日志", "服务器日志"} {
		hits, err := pg.Search(t.Context(), q, session.SearchOptions{Limit: 50})
		if err != nil || len(hits) == 0 {
			t.Errorf("search %q on postgres after migrating: %d hits, %v", q, len(hits), err)
		}
	}
	// New rows get ids past the copied ones.
	msg := &session.Message{Message: llm.UserMessage("after the move")}
	if err := pg.Append(t.Context(), h.ids[2], msg); err != nil {
		t.Fatalf("append after migrating: %v", err)
	}
	if msg.ID <= 25 {
		t.Errorf("a message appended after migrating got id %d, which a copied message has", msg.ID)
	}
}

// TestMigrateResumesAfterStop stops a migration after some batches, in
// one table and then in the next, and runs it again: every row is
// copied once, and a further run copies nothing.
func TestMigrateResumesAfterStop(t *testing.T) {
	h := newHome(t)
	h.fill(t, 12)
	var total int64
	for _, stopAfter := range []int{2, 5} {
		ctx, cancel := context.WithCancel(t.Context())
		batches := 0
		r, err := storage.Migrate(ctx, h.src, h.dst(t), storage.Options{Batch: 5, Progress: func(p storage.Progress) {
			if !p.Done {
				if batches++; batches == stopAfter {
					cancel()
				}
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("migration stopped after %d batches: err %v, want context.Canceled", stopAfter, err)
		}
		total += copiedRows(r)
	}
	r, err := storage.Migrate(t.Context(), h.src, h.dst(t), storage.Options{Batch: 5})
	if err != nil {
		t.Fatalf("resumed migration: %v", err)
	}
	total += copiedRows(r)
	if want := int64(12 + 60 + 2 + 1); total != want {
		t.Errorf("the three runs copied %d rows in all, want %d", total, want)
	}
	r, err = storage.Migrate(t.Context(), h.src, h.dst(t), storage.Options{Batch: 5})
	if err != nil {
		t.Fatalf("migration run again: %v", err)
	}
	if n := copiedRows(r); n != 0 {
		t.Errorf("a finished migration run again copied %d rows", n)
	}
	// The fixture's tables hold rows; the other stores' are empty, and
	// every one matches.
	filled := map[string]bool{"sessions": true, "messages": true, "usage_daily": true, "session_leases": true}
	for _, tb := range r.Tables {
		if tb.Skipped == "" && (filled[tb.Name] && tb.Source.Rows == 0 || !tb.Match()) {
			t.Errorf("table %s after the run again: %+v", tb.Name, tb)
		}
		delete(filled, tb.Name)
	}
	if len(filled) > 0 {
		t.Errorf("tables %v were not migrated", filled)
	}
}

func copiedRows(r storage.Report) int64 {
	var n int64
	for _, tb := range r.Tables {
		n += tb.Copied
	}
	return n
}

// TestMigrateSanitizesText copies text PostgreSQL's text type refuses
// and counts the rows it changed.
func TestMigrateSanitizesText(t *testing.T) {
	h := newHome(t)
	s := &session.Session{Source: "cli", Title: "bad \xff bytes"}
	if err := h.store.Create(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	if err := h.store.Append(t.Context(), s.ID,
		&session.Message{Message: llm.ToolResultMessage("c\x001", "term\xfe", "out \xc3\x28 put")},
		&session.Message{Message: llm.UserMessage("fine")}); err != nil {
		t.Fatal(err)
	}
	r, err := storage.Migrate(t.Context(), h.src, h.dst(t), storage.Options{})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	sanitized := map[string]int64{}
	for _, tb := range r.Tables {
		sanitized[tb.Name] = tb.Sanitized
	}
	if sanitized["sessions"] != 1 || sanitized["messages"] != 1 {
		t.Errorf("sanitized rows %v, want one session and one message", sanitized)
	}
}

// TestMigrateRefusesTableWithoutCounterpart stops before copying
// anything when a table holding rows has nowhere to go, and names it,
// unless told to leave it behind; an empty one is skipped.
func TestMigrateRefusesTableWithoutCounterpart(t *testing.T) {
	h := newHome(t)
	h.fill(t, 2)
	h.exec(t, `CREATE TABLE widgets (id INTEGER PRIMARY KEY, name TEXT)`, `INSERT INTO widgets (name) VALUES ('w')`,
		`CREATE TABLE gadgets (id INTEGER PRIMARY KEY)`)
	dst := h.dst(t)
	_, err := storage.Migrate(t.Context(), h.src, dst, storage.Options{})
	if err == nil || !strings.Contains(err.Error(), "widgets (1 rows)") || strings.Contains(err.Error(), "gadgets") {
		t.Fatalf("migrate with a table postgres lacks: err %v, want one naming widgets only", err)
	}
	var n int
	if err := dst.Reader().QueryRow(`SELECT count(*) FROM sessions`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a refused migration copied %d sessions (%v)", n, err)
	}
	if _, err := storage.Migrate(t.Context(), h.src, dst, storage.Options{Skip: []string{"widget"}}); err == nil ||
		!strings.Contains(err.Error(), `skip "widget": state.db has no such table`) {
		t.Fatalf("migrate skipping a table state.db lacks: %v", err)
	}
	r, err := storage.Migrate(t.Context(), h.src, dst, storage.Options{Skip: []string{"widgets"}})
	if err != nil {
		t.Fatalf("migrate leaving widgets behind: %v", err)
	}
	skipped := map[string]string{}
	for _, tb := range r.Tables {
		skipped[tb.Name] = tb.Skipped
	}
	if skipped["widgets"] != "left out as asked" || skipped["gadgets"] == "" || skipped["sessions"] != "" {
		t.Errorf("skipped %v, want widgets as asked and gadgets as empty, not sessions", skipped)
	}
	if _, err := storage.Compare(t.Context(), h.src, dst); err == nil || !strings.Contains(err.Error(), "widgets") {
		t.Errorf("compare not leaving widgets out: %v", err)
	}
	if _, err := storage.Compare(t.Context(), h.src, dst, "widgets"); err != nil {
		t.Errorf("compare leaving widgets out: %v", err)
	}
}

// TestMigrateRefusesUsedDatabase will not merge into a database that
// already holds sessions.
func TestMigrateRefusesUsedDatabase(t *testing.T) {
	h := newHome(t)
	h.fill(t, 1)
	dst := h.dst(t)
	pg, err := postgres.New(dst, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Create(t.Context(), &session.Session{Source: "api"}); err != nil {
		t.Fatal(err)
	}
	_, err = storage.Migrate(t.Context(), h.src, dst, storage.Options{})
	if err == nil || !strings.Contains(err.Error(), "postgres table sessions already holds rows") {
		t.Fatalf("migrate into a used database: %v", err)
	}
}

// TestCompareFindsDifference names the table whose copy was changed.
func TestCompareFindsDifference(t *testing.T) {
	h := newHome(t)
	h.fill(t, 3)
	dst := h.dst(t)
	if _, err := storage.Migrate(t.Context(), h.src, dst, storage.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Compare(t.Context(), h.src, dst); err != nil {
		t.Fatalf("compare right after migrating: %v", err)
	}
	for _, change := range []string{
		`UPDATE messages SET search_text = search_text || '!' WHERE id = 3`,
		`DELETE FROM session_leases`,
	} {
		if _, err := dst.Writer().Exec(change); err != nil {
			t.Fatal(err)
		}
	}
	_, err := storage.Compare(t.Context(), h.src, dst)
	if !errors.Is(err, storage.ErrMismatch) || !strings.Contains(err.Error(), "messages (") ||
		!strings.Contains(err.Error(), "session_leases (") || strings.Contains(err.Error(), "sessions (") {
		t.Fatalf("compare after changing messages and session_leases: %v", err)
	}
}

// TestMigrateTwoAtOnce runs two migrations of one state.db into one
// database at the same time, each through its own connections, as two
// shells would: a batch one of them committed is never copied again by
// the other, which stops, and a run after both leaves an exact copy.
func TestMigrateTwoAtOnce(t *testing.T) {
	h := newHome(t)
	h.fill(t, 10)
	errs := make(chan error, 2)
	for range 2 {
		dst := h.dst(t)
		go func() {
			_, err := storage.Migrate(t.Context(), h.src, dst, storage.Options{Batch: 3})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil && !strings.Contains(err.Error(), "another migration is copying") {
			t.Errorf("one of two migrations at once: %v", err)
		}
	}
	r, err := storage.Migrate(t.Context(), h.src, h.dst(t), storage.Options{})
	if err != nil {
		t.Fatalf("migration after two at once: %v", err)
	}
	for _, tb := range r.Tables {
		if !tb.Match() {
			t.Errorf("table %s after two migrations at once: %+v", tb.Name, tb)
		}
	}
}

// TestMigrateAfterStateChanged reports, by name, the tables state.db
// changed in after they were copied, rather than copying the change
// into a finished table half-way.
func TestMigrateAfterStateChanged(t *testing.T) {
	h := newHome(t)
	h.fill(t, 2)
	dst := h.dst(t)
	if _, err := storage.Migrate(t.Context(), h.src, dst, storage.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := h.store.Append(t.Context(), h.ids[1], &session.Message{Message: llm.UserMessage("one more")}); err != nil {
		t.Fatal(err)
	}
	_, err := storage.Migrate(t.Context(), h.src, dst, storage.Options{})
	if !errors.Is(err, storage.ErrMismatch) || !strings.Contains(err.Error(), "messages (state.db 11 rows") ||
		!strings.Contains(err.Error(), "sessions (") || strings.Contains(err.Error(), "usage_daily") {
		t.Fatalf("migrate after state.db changed: %v", err)
	}
}

// TestMigrateResumesByCompositeKey stops and resumes a table without
// rowid (usage_daily, keyed by day, user, tenant and model) between
// batches: its batches follow the key, and no row is copied twice.
func TestMigrateResumesByCompositeKey(t *testing.T) {
	h := newHome(t)
	h.fill(t, 1)
	for _, day := range []string{"2026-11-01", "2026-11-02", "2026-11-03"} {
		for _, user := range []string{"", "ana", "李雷", "zoë"} {
			h.exec(t, `INSERT INTO usage_daily (day, user_id, tenant, model, calls, input_tokens, output_tokens, cost_usd)
VALUES ('`+day+`', '`+user+`', 'acme', 'qwen3', 1, 10, 5, 0.001)`)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	batches := 0
	r, err := storage.Migrate(ctx, h.src, h.dst(t), storage.Options{Batch: 2, Progress: func(p storage.Progress) {
		if p.Table == "usage_daily" && !p.Done {
			if batches++; batches == 3 {
				cancel()
			}
		}
	}})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped migration: %v", err)
	}
	first := copiedRows(r)
	r, err = storage.Migrate(t.Context(), h.src, h.dst(t), storage.Options{Batch: 2})
	if err != nil {
		t.Fatalf("resumed migration: %v", err)
	}
	if total := first + copiedRows(r); total != 1+5+13+1 {
		t.Errorf("copied %d rows in two runs, want 20", total)
	}
}
