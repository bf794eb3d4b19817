package hermesagent

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// openStore is a hermes session store in a fresh state file.
func openStore(t testing.TB) *sqlite.Store {
	t.Helper()
	db, err := sqlitedb.Open(context.Background(), filepath.Join(t.TempDir(), "hermes-state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := sqlite.New(db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// sampleHome is a Hermes state.db of 300 sessions: 100 conversations, each
// compressed twice (a child continuing its parent, then a grandchild),
// with tool calls, reasoning, CJK text and rewound turns.
func sampleHome(t testing.TB) *hermesHome {
	h := newHermesHome(t)
	for k := range 100 {
		root := fmt.Sprintf("20260718_%06d_a%05d", k, k)
		h.conversation(t, root, "", 2+k%3, k%3 == 0)
		child := fmt.Sprintf("20260718_%06d_b%05d", k, k)
		h.conversation(t, child, root, 1+k%2, k%3 == 0)
		h.conversation(t, fmt.Sprintf("20260718_%06d_c%05d", k, k), child, 1, false)
	}
	return h
}

// Every session, message and tool call of a Hermes state.db arrives, with
// its lineage, and is found by search (CJK included); a second import
// imports nothing; and Hermes's file is not written.
func TestImportSessions(t *testing.T) {
	h := sampleHome(t)
	st := openStore(t)
	ctx := context.Background()
	dry, err := ImportSessions(ctx, st, h.path, true)
	if err != nil || dry.Sessions != h.sessions || dry.Messages != h.messages {
		t.Fatalf("dry run: %+v, %v; want %d sessions and %d messages", dry, err, h.sessions, h.messages)
	}
	if _, err := st.Get(ctx, "20260718_000000_a00000"); err == nil {
		t.Fatal("the dry run wrote a session")
	}
	rep, err := ImportSessions(ctx, st, h.path, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != h.sessions || rep.Messages != h.messages || rep.Skipped != 0 {
		t.Fatalf("import: %+v; want %d sessions and %d messages", rep, h.sessions, h.messages)
	}
	t.Logf("%d sessions, %d messages in %v: %.0f messages/s", rep.Sessions, rep.Messages, rep.Took, float64(rep.Messages)/rep.Took.Seconds())
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if int(stats.Sessions) != h.sessions || int(stats.Messages) != h.messages {
		t.Errorf("store holds %d sessions and %d messages, want %d and %d", stats.Sessions, stats.Messages, h.sessions, h.messages)
	}
	calls := 0
	for k := range 100 {
		for _, id := range []string{fmt.Sprintf("20260718_%06d_a%05d", k, k), fmt.Sprintf("20260718_%06d_b%05d", k, k), fmt.Sprintf("20260718_%06d_c%05d", k, k)} {
			msgs, err := st.Messages(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				calls += len(m.ToolCalls)
			}
		}
	}
	if calls != h.calls {
		t.Errorf("%d tool calls arrived, want %d", calls, h.calls)
	}
	child, err := st.Get(ctx, "20260718_000007_b00007")
	if err != nil || child.ParentID != "20260718_000007_a00007" || child.Source != "cli" && child.Source != "telegram" && child.Source != "cron" && child.Source != "api" {
		t.Errorf("child session: %+v, %v", child, err)
	}
	root, _ := st.Get(ctx, "20260718_000004_a00004")
	if root.Title != "session 20260718_000004_a00004" || root.Model != "anthropic/claude-sonnet-4" || root.InputTokens != 1200 ||
		root.CostUSD != 0.0123 || root.EndReason == "" || root.StartedAt.IsZero() || root.EndedAt.Before(root.StartedAt) {
		t.Errorf("root session: %+v", root)
	}
	if p, err := st.SystemPrompt(ctx, root.ID); err != nil || p != "You are Hermes." {
		t.Errorf("system prompt %q, %v", p, err)
	}
	msgs, _ := st.Messages(ctx, root.ID)
	if len(msgs) < 4 || msgs[1].ToolCalls[0].Name != "terminal" || msgs[1].ToolCalls[0].Arguments != `{"command": "ls -la /srv/0"}` ||
		msgs[1].Reasoning == "" || msgs[2].ToolCallID != msgs[1].ToolCalls[0].ID || msgs[2].Name != "terminal" || msgs[0].CreatedAt.IsZero() {
		t.Errorf("first exchange: %+v", msgs[:4])
	}
	for _, q := range []string{"部署脚本", "deploy-20260718_000001_a00001"} {
		hits, err := st.Search(ctx, q, session.SearchOptions{})
		if err != nil || len(hits) == 0 {
			t.Errorf("search %q: %d hits, %v", q, len(hits), err)
		}
	}
	again, err := ImportSessions(ctx, st, h.path, false)
	if err != nil || again.Sessions != 0 || again.Skipped != h.sessions {
		t.Errorf("second import: %+v, %v; want all %d skipped", again, err, h.sessions)
	}
}

// An import cut off half-way (the process killed) is completed by the
// next: sessions it finished are skipped, the one it was writing is
// imported again whole, the rest are imported.
func TestImportSessionsResumes(t *testing.T) {
	h := sampleHome(t)
	st := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cut := &cutStore{Store: st, after: 120, cancel: cancel}
	if _, err := ImportSessions(ctx, cut, h.path, false); err == nil {
		t.Fatal("the cut-off import reported no error")
	}
	rep, err := ImportSessions(context.Background(), st, h.path, false)
	if err != nil {
		t.Fatal(err)
	}
	stats, _ := st.Stats(context.Background())
	if int(stats.Sessions) != h.sessions || int(stats.Messages) != h.messages {
		t.Errorf("after the second run: %d sessions, %d messages; want %d, %d (report %+v)", stats.Sessions, stats.Messages, h.sessions, h.messages, rep)
	}
	if rep.Redone != 1 || rep.Skipped != 120 {
		t.Errorf("second run: %+v; want the 120 finished skipped and the cut one redone", rep)
	}
}

// cutStore dies after creating its after+1st session, before its
// messages: what a kill in the middle of a session leaves.
type cutStore struct {
	*sqlite.Store
	after, created int
	cancel         func()
}

func (c *cutStore) Create(ctx context.Context, s *session.Session) error {
	if err := c.Store.Create(ctx, s); err != nil {
		return err
	}
	c.created++
	if c.created > c.after {
		c.cancel()
	}
	return nil
}

func (c *cutStore) Append(ctx context.Context, id string, msgs ...*session.Message) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return c.Store.Append(ctx, id, msgs...)
}
