package storetest

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

func testCreateGet(t *testing.T, s session.Store) {
	parent := create(t, s, session.Session{Source: "cli"})
	if parent.ID == "" || parent.StartedAt.IsZero() {
		t.Fatalf("Create left ID %q or StartedAt %v empty", parent.ID, parent.StartedAt)
	}
	other := create(t, s, session.Session{Source: "cli"})
	if other.ID == parent.ID {
		t.Fatalf("two sessions got the same id %s", other.ID)
	}
	got := get(t, s, parent.ID)
	sameTime(t, "StartedAt", got.StartedAt, parent.StartedAt)

	want := session.Session{
		ID: "20261202_110737_abcdef", Source: "telegram", Title: "Deploy",
		Model: "qwen3:8b", ParentID: parent.ID, StartedAt: base,
		EndedAt: base.Add(time.Hour), EndReason: "done", Cwd: "/srv/app",
		Agent: "analyst", User: "ana", Tenant: "acme",
	}
	create(t, s, want)
	got = get(t, s, want.ID)
	sameTime(t, "StartedAt", got.StartedAt, want.StartedAt)
	sameTime(t, "EndedAt", got.EndedAt, want.EndedAt)
	got.StartedAt, got.EndedAt = want.StartedAt, want.EndedAt
	if *got != want {
		t.Errorf("Get = %+v\nwant %+v", *got, want)
	}
}

func testCreateRejects(t *testing.T, s session.Store) {
	a := create(t, s, session.Session{Source: "cli"})
	dup := session.Session{ID: a.ID, Source: "cli"}
	if err := s.Create(ctx(t), &dup); err == nil {
		t.Errorf("Create with an existing id succeeded")
	}
	orphan := session.Session{Source: "cli", ParentID: "no-such-session"}
	wantNotFound(t, "Create with an unknown parent", s.Create(ctx(t), &orphan))
}

func testListLatest(t *testing.T, s session.Store) {
	_, err := s.Latest(ctx(t), "")
	wantNotFound(t, "Latest on an empty store", err)
	// 25 sessions, started a minute apart, every third from cron.
	var ids []string // newest first
	for i := range 25 {
		src := "cli"
		if i%3 == 0 {
			src = "cron"
		}
		sess := create(t, s, session.Session{Source: src, StartedAt: base.Add(time.Duration(i) * time.Minute)})
		ids = append([]string{sess.ID}, ids...)
	}
	list, err := s.List(ctx(t), session.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if got := sessionIDs(list); fmt.Sprint(got) != fmt.Sprint(ids[:20]) {
		t.Errorf("List() = %v\nwant %v (newest first, default limit 20)", got, ids[:20])
	}
	list, err = s.List(ctx(t), session.ListOptions{Limit: 5, Offset: 22})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if got := sessionIDs(list); fmt.Sprint(got) != fmt.Sprint(ids[22:]) {
		t.Errorf("List(limit 5, offset 22) = %v, want %v", got, ids[22:])
	}
	list, err = s.List(ctx(t), session.ListOptions{Source: "cron", Limit: 100})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list) != 9 {
		t.Errorf("List(source cron) returned %d sessions, want 9", len(list))
	}
	for i, sess := range list {
		if sess.Source != "cron" {
			t.Errorf("List(source cron)[%d].Source = %q", i, sess.Source)
		}
		if i > 0 && sess.StartedAt.After(list[i-1].StartedAt) {
			t.Errorf("List(source cron) is not newest first at %d", i)
		}
	}
	latest, err := s.Latest(ctx(t), "")
	if err != nil || latest.ID != ids[0] {
		t.Errorf("Latest() = %v, %v; want %s", latest, err, ids[0])
	}
	latest, err = s.Latest(ctx(t), "cron")
	if err != nil || latest.ID != list[0].ID {
		t.Errorf("Latest(cron) = %v, %v; want %s", latest, err, list[0].ID)
	}
	_, err = s.Latest(ctx(t), "discord")
	wantNotFound(t, "Latest(discord)", err)

	// Children of one session, by ParentID, newest first.
	var kids []string
	for range 2 {
		kid := create(t, s, session.Session{Source: "cli", ParentID: ids[3]})
		kids = append([]string{kid.ID}, kids...)
	}
	create(t, s, session.Session{Source: "cli", ParentID: ids[4]})
	list, err = s.List(ctx(t), session.ListOptions{ParentID: ids[3]})
	if err != nil || fmt.Sprint(sessionIDs(list)) != fmt.Sprint(kids) {
		t.Errorf("List(parent %s) = %v, %v; want %v", ids[3], sessionIDs(list), err, kids)
	}
}

func testNotFound(t *testing.T, s session.Store) {
	const id = "20200101_000000_000000"
	_, err := s.Get(ctx(t), id)
	wantNotFound(t, "Get", err)
	_, err = s.Messages(ctx(t), id)
	wantNotFound(t, "Messages", err)
	wantNotFound(t, "Append", s.Append(ctx(t), id, userMsg("hello")))
	_, err = s.Around(ctx(t), 424242, 2)
	wantNotFound(t, "Around", err)
	wantNotFound(t, "AddUsage", s.AddUsage(ctx(t), id, session.Usage{InputTokens: 1}))
	wantNotFound(t, "SetTitle", s.SetTitle(ctx(t), id, "x"))
	wantNotFound(t, "SetSystemPrompt", s.SetSystemPrompt(ctx(t), id, "x"))
	_, err = s.SystemPrompt(ctx(t), id)
	wantNotFound(t, "SystemPrompt", err)
	wantNotFound(t, "End", s.End(ctx(t), id, "done"))
	wantNotFound(t, "Delete", s.Delete(ctx(t), id))
}

func testUsageTitleEnd(t *testing.T, s session.Store) {
	sess := create(t, s, session.Session{Source: "cli"})
	u := session.Usage{InputTokens: 1000, OutputTokens: 200, CacheReadTokens: 800,
		CacheWriteTokens: 100, ReasoningTokens: 50, CostUSD: 0.0125}
	// The three ways to add usage: alone, with the reply it paid for (one
	// transaction), and through Record with no messages.
	if err := s.AddUsage(ctx(t), sess.ID, u); err != nil {
		t.Fatalf("AddUsage: %v", err)
	}
	reply := &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("done")},
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: "{}"}}}}
	if err := s.Record(ctx(t), sess.ID, u, reply); err != nil {
		t.Fatalf("Record: %v", err)
	}
	if reply.ID == 0 {
		t.Errorf("Record did not write the message's ID back")
	}
	if err := s.Record(ctx(t), sess.ID, u); err != nil {
		t.Fatalf("Record without messages: %v", err)
	}
	wantNotFound(t, "Record", s.Record(ctx(t), "no-such-session", u, &session.Message{Message: llm.UserMessage("x")}))
	if err := s.SetTitle(ctx(t), sess.ID, "数据库迁移 plan"); err != nil {
		t.Fatalf("SetTitle: %v", err)
	}
	if p, err := s.SystemPrompt(ctx(t), sess.ID); err != nil || p != "" {
		t.Fatalf("SystemPrompt of a new session = %q, %v; want \"\"", p, err)
	}
	const prompt = "You are hermes.\n\nMEMORY [1%]\n用户偏好中文"
	if err := s.SetSystemPrompt(ctx(t), sess.ID, prompt); err != nil {
		t.Fatalf("SetSystemPrompt: %v", err)
	}
	if p, err := s.SystemPrompt(ctx(t), sess.ID); err != nil || p != prompt {
		t.Fatalf("SystemPrompt = %q, %v; want %q", p, err, prompt)
	}
	before := time.Now().Add(-time.Second)
	if err := s.End(ctx(t), sess.ID, "interrupted"); err != nil {
		t.Fatalf("End: %v", err)
	}
	got := get(t, s, sess.ID)
	if got.InputTokens != 3000 || got.OutputTokens != 600 || got.CacheReadTokens != 2400 ||
		got.CacheWriteTokens != 300 || got.ReasoningTokens != 150 || math.Abs(got.CostUSD-0.0375) > 1e-9 {
		t.Errorf("usage after AddUsage and two Records = %+v", got)
	}
	if got.MessageCount != 1 || got.ToolCallCount != 1 {
		t.Errorf("after Record of one reply with one call: %d messages, %d tool calls", got.MessageCount, got.ToolCallCount)
	}
	if got.Title != "数据库迁移 plan" {
		t.Errorf("Title = %q", got.Title)
	}
	if got.EndReason != "interrupted" || got.EndedAt.Before(before) {
		t.Errorf("End: EndReason %q, EndedAt %v", got.EndReason, got.EndedAt)
	}
}

func testStats(t *testing.T, s session.Store) {
	a := create(t, s, session.Session{Source: "cli"})
	b := create(t, s, session.Session{Source: "cli"})
	c := create(t, s, session.Session{Source: "telegram"})
	appendMsgs(t, s, a.ID, userMsg("one"), callMsg("c1", "terminal", `{}`), resultMsg("c1", "terminal", "ok"))
	appendMsgs(t, s, b.ID, userMsg("two"))
	appendMsgs(t, s, c.ID, userMsg("three"), callMsg("c2", "web_search", `{}`, "c3", "read_file", `{}`))
	if err := s.AddUsage(ctx(t), a.ID, session.Usage{InputTokens: 10, OutputTokens: 5, CostUSD: 0.5}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsage(ctx(t), c.ID, session.Usage{InputTokens: 1, ReasoningTokens: 7, CostUSD: 0.25}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx(t))
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if st.Sessions != 3 || st.Messages != 6 || st.ToolCalls != 3 || st.InputTokens != 11 ||
		st.OutputTokens != 5 || st.ReasoningTokens != 7 || math.Abs(st.CostUSD-0.75) > 1e-9 {
		t.Errorf("Stats = %+v", st)
	}
	if len(st.BySource) != 2 || st.BySource["cli"] != 2 || st.BySource["telegram"] != 1 {
		t.Errorf("Stats.BySource = %v", st.BySource)
	}
}

func sessionIDs(list []session.Session) []string {
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}
