package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// home is a state.db with sessions to migrate and the PostgreSQL
// database to migrate it to.
type home struct {
	src   *sqlitedb.DB
	store *sqlite.Store
	dsn   string
	ids   []string
}

// newHome opens an empty state.db and a new PostgreSQL database.
func newHome(t *testing.T) *home {
	t.Helper()
	src, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	store, err := sqlite.New(src, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &home{src: src, store: store, dsn: pgtest.NewDatabase(t)}
}

// dst opens the PostgreSQL database, closed when t ends.
func (h *home) dst(t *testing.T) *pgdb.DB {
	t.Helper()
	db, err := pgdb.Open(t.Context(), h.dsn, pgdb.Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// exec runs statements on state.db's writer.
func (h *home) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := h.src.Writer().ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// fill writes sessions as an agent leaves them: English and CJK text,
// tool calls and their results, a NUL byte, several text parts, usage,
// a lease, and a session that continues one created after it.
func (h *home) fill(t *testing.T, sessions int) {
	t.Helper()
	ctx := t.Context()
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := range sessions {
		s := &session.Session{Source: "cli", Title: "部署 deploy", Model: "qwen3:32b", StartedAt: at}
		if i%3 == 1 {
			s.User, s.Tenant = "u1", "acme"
		}
		if err := h.store.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		h.ids = append(h.ids, s.ID)
		call := &session.Message{Message: llm.AssistantMessage("let me look"), FinishReason: "tool_calls", Tokens: 12}
		call.ToolCalls = []llm.ToolCall{{ID: "call_1", Name: "terminal", Arguments: `{"command":"tail -n 5 /var/log/nginx.log"}`}}
		parts := &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("first part"), llm.TextPart("第二部分")}}}
		msgs := []*session.Message{
			{Message: llm.UserMessage("请帮我检查服务器日志 and the nginx config")},
			call,
			{Message: llm.ToolResultMessage("call_1", "terminal", "line one\x00line two <b>&</b>")},
			{Message: llm.AssistantMessage("日志里有 502 错误"), FinishReason: "stop", Tokens: 30},
			parts,
		}
		u := session.Usage{InputTokens: 100, OutputTokens: 20, CostUSD: 0.0125}
		if err := h.store.Record(ctx, s.ID, u, msgs...); err != nil {
			t.Fatal(err)
		}
	}
	if len(h.ids) > 1 {
		// The first session continues the last, which comes after it in
		// state.db: the copy cannot link them until both are in.
		h.exec(t, `UPDATE sessions SET parent_session_id = '`+h.ids[len(h.ids)-1]+`' WHERE id = '`+h.ids[0]+`'`)
	}
	if _, err := h.store.AcquireLease(ctx, session.LeaseRequest{SessionID: h.ids[0], Holder: "host/1", Now: at, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
}

// messages is every session's messages from store.
func messages(t *testing.T, store session.Store, ids []string) [][]session.Message {
	t.Helper()
	var out [][]session.Message
	for _, id := range ids {
		msgs, err := store.Messages(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, msgs)
	}
	return out
}
