package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

func userMsg(text string) *session.Message {
	return &session.Message{Message: llm.UserMessage(text)}
}

func assistantMsg(text string) *session.Message {
	return &session.Message{Message: llm.AssistantMessage(text), FinishReason: "stop"}
}

// callMsg is an assistant message calling tools, given as id, name,
// arguments triples.
func callMsg(idNameArgs ...string) *session.Message {
	m := &session.Message{Message: llm.AssistantMessage(""), FinishReason: "tool_calls"}
	for i := 0; i+2 < len(idNameArgs); i += 3 {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: idNameArgs[i], Name: idNameArgs[i+1], Arguments: idNameArgs[i+2]})
	}
	return m
}

func resultMsg(callID, name, text string) *session.Message {
	return &session.Message{Message: llm.ToolResultMessage(callID, name, text)}
}

// messages returns a session's messages and fails the test if it cannot.
func messages(t *testing.T, s session.Store, sessionID string) []session.Message {
	t.Helper()
	msgs, err := s.Messages(ctx(t), sessionID)
	if err != nil {
		t.Fatalf("Messages(%s): %v", sessionID, err)
	}
	return msgs
}

// sameMessage fails the test unless got equals want, times compared as
// instants.
func sameMessage(t *testing.T, i int, got, want session.Message) {
	t.Helper()
	sameTime(t, "CreatedAt", got.CreatedAt, want.CreatedAt)
	got.CreatedAt, want.CreatedAt = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("message %d round trip:\n got %+v\nwant %+v", i, got, want)
	}
}

func testAppendRoundTrip(t *testing.T, s session.Store) {
	sess := create(t, s, session.Session{Source: "cli"})
	full := &session.Message{
		Message: llm.Message{
			Role: llm.RoleAssistant,
			Content: []llm.Part{
				llm.TextPart("Here is the chart.\n第二行"),
				llm.ImagePart("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
				{Type: llm.PartImage, ImageURL: "https://example.com/a.png", MIMEType: "image/png"},
				llm.TextPart("and a caption"),
			},
			ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "terminal", Arguments: `{"command":"ls -la <dir> && echo \"hi\" 数据"}`},
				{ID: "call_2", Name: "read_file", Arguments: `{"path":`}, // truncated JSON is kept as text
			},
			Reasoning: "The user wants a chart; 先画图.",
			ReasoningBlocks: []llm.ReasoningBlock{
				{Type: "thinking", Text: "plan", Signature: "c2lnbmF0dXJl"},
				{Type: "redacted_thinking", Data: "b3BhcXVl"},
				{Type: "reasoning", ID: "rs_1", Data: "ZW5jcnlwdGVk"},
			},
		},
		FinishReason: "tool_calls",
		Tokens:       321,
		CreatedAt:    base,
	}
	in := []*session.Message{
		{Message: llm.SystemMessage("You are hermes."), CreatedAt: base.Add(-time.Second)},
		userMsg("你好, can you draw a chart?"),
		full,
		resultMsg("call_1", "terminal", "total 0\n"),
		resultMsg("call_2", "read_file", ""),
		{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.ImagePart("https://example.com/only-image.jpg")}}},
		{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("a"), llm.TextPart("b")}}},
		{Message: llm.Message{Role: llm.RoleAssistant}, FinishReason: "length", Tokens: 4096},
	}
	before := time.Now().Add(-time.Second)
	appendMsgs(t, s, sess.ID, in...)
	got := messages(t, s, sess.ID)
	if len(got) != len(in) {
		t.Fatalf("Messages returned %d messages, want %d", len(got), len(in))
	}
	for i, m := range in {
		if m.ID == 0 || m.SessionID != sess.ID {
			t.Errorf("message %d: ID %d, SessionID %q not written back", i, m.ID, m.SessionID)
		}
		if m.CreatedAt.Before(before) && i != 0 && i != 2 {
			t.Errorf("message %d: CreatedAt %v not filled in", i, m.CreatedAt)
		}
		sameMessage(t, i, got[i], *m)
	}
	sameTime(t, "explicit CreatedAt", got[2].CreatedAt, base)
}

func testAppendOrderAndCounts(t *testing.T, s session.Store) {
	a := create(t, s, session.Session{Source: "cli"})
	b := create(t, s, session.Session{Source: "cli"})
	var last int64
	for i := range 5 {
		batch := []*session.Message{
			callMsg("c1", "terminal", `{"command":"make"}`, "c2", "read_file", `{"path":"go.mod"}`),
			resultMsg("c1", "terminal", "ok"),
			resultMsg("c2", "read_file", "module x"),
		}
		appendMsgs(t, s, a.ID, batch...)
		appendMsgs(t, s, b.ID, userMsg("ping"))
		for j, m := range batch {
			if m.ID <= last {
				t.Fatalf("batch %d message %d: ID %d not above %d", i, j, m.ID, last)
			}
			last = m.ID
		}
	}
	if err := s.Append(ctx(t), a.ID); err != nil {
		t.Errorf("Append with no messages: %v", err)
	}
	got := get(t, s, a.ID)
	if got.MessageCount != 15 || got.ToolCallCount != 10 {
		t.Errorf("counts = %d messages, %d tool calls; want 15, 10", got.MessageCount, got.ToolCallCount)
	}
	msgs := messages(t, s, a.ID)
	if len(msgs) != 15 {
		t.Fatalf("Messages returned %d, want 15", len(msgs))
	}
	for i := 1; i < len(msgs); i++ {
		if msgs[i].ID <= msgs[i-1].ID {
			t.Errorf("Messages not in id order at %d", i)
		}
		if want := []llm.Role{llm.RoleAssistant, llm.RoleTool, llm.RoleTool}[i%3]; msgs[i].Role != want {
			t.Errorf("message %d role %s, want %s", i, msgs[i].Role, want)
		}
	}
	if got := get(t, s, b.ID); got.MessageCount != 5 || got.ToolCallCount != 0 {
		t.Errorf("session b counts = %d, %d; want 5, 0", got.MessageCount, got.ToolCallCount)
	}
	empty := create(t, s, session.Session{Source: "cli"})
	if msgs := messages(t, s, empty.ID); len(msgs) != 0 {
		t.Errorf("Messages of a new session = %d messages", len(msgs))
	}
}

func testAround(t *testing.T, s session.Store) {
	a := create(t, s, session.Session{Source: "cli"})
	b := create(t, s, session.Session{Source: "cli"})
	var ids []int64
	for range 10 {
		m := userMsg("message")
		appendMsgs(t, s, a.ID, m)
		appendMsgs(t, s, b.ID, userMsg("other session")) // interleave ids
		ids = append(ids, m.ID)
	}
	check := func(id int64, n int, want []int64) {
		t.Helper()
		msgs, err := s.Around(ctx(t), id, n)
		if err != nil {
			t.Fatalf("Around(%d, %d): %v", id, n, err)
		}
		var got []int64
		for _, m := range msgs {
			got = append(got, m.ID)
			if m.SessionID != a.ID {
				t.Errorf("Around(%d, %d) returned message %d of session %s", id, n, m.ID, m.SessionID)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Around(%d, %d) = %v, want %v", id, n, got, want)
		}
	}
	check(ids[5], 2, ids[3:8])
	check(ids[0], 2, ids[0:3])
	check(ids[9], 3, ids[6:10])
	check(ids[4], 0, ids[4:5])
	check(ids[4], 100, ids)
}

func testDelete(t *testing.T, s session.Store) {
	root := create(t, s, session.Session{Source: "cli"})
	child := create(t, s, session.Session{Source: "cli", ParentID: root.ID})
	keep := create(t, s, session.Session{Source: "cli"})
	appendMsgs(t, s, root.ID, userMsg("zebrafish migration notes"), resultMsg("c", "terminal", "zebrafish 斑马鱼迁移"))
	appendMsgs(t, s, child.ID, userMsg("zebrafish follow-up"))
	appendMsgs(t, s, keep.ID, userMsg("unrelated"))
	if err := s.Delete(ctx(t), root.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := s.Get(ctx(t), root.ID)
	wantNotFound(t, "Get after Delete", err)
	_, err = s.Messages(ctx(t), root.ID)
	wantNotFound(t, "Messages after Delete", err)
	for _, q := range []string{"zebrafish", "斑马鱼", "迁移", "ebrafis"} {
		hits := search(t, s, q, session.SearchOptions{})
		for _, h := range hits {
			if h.SessionID == root.ID {
				t.Errorf("Search(%q) still finds deleted session: %+v", q, h)
			}
		}
	}
	if msgs := messages(t, s, child.ID); len(msgs) != 1 {
		t.Errorf("child session has %d messages after its parent was deleted, want 1", len(msgs))
	}
	if hits := search(t, s, "zebrafish", session.SearchOptions{}); len(hits) != 1 || hits[0].SessionID != child.ID {
		t.Errorf("Search(zebrafish) after Delete = %+v, want the child's message only", hits)
	}
	st, err := s.Stats(ctx(t))
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if st.Sessions != 2 || st.Messages != 2 {
		t.Errorf("Stats after Delete = %d sessions, %d messages; want 2, 2", st.Sessions, st.Messages)
	}
}
