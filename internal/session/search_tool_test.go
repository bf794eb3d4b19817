package session_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/tool"
)

// toolFixture is a store with three lineages mentioning kubernetes: a
// root session and its continuation, an unrelated session, and the
// session the tool is called from.
type toolFixture struct {
	store               session.Store
	tool                tool.Tool
	root, child, other  *session.Session
	current             *session.Session
	longText, hitInRoot string
}

// openTestStore opens a session store in a fresh state.db.
func openTestStore(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "state.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newToolFixture(t *testing.T) *toolFixture {
	t.Helper()
	s := openTestStore(t)
	f := &toolFixture{store: s, tool: session.NewSearchTool(s)}
	ctx := t.Context()
	mk := func(sess *session.Session, texts ...string) *session.Session {
		if err := s.Create(ctx, sess); err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			m := &session.Message{Message: llm.UserMessage(text)}
			if strings.HasPrefix(text, "ok:") {
				m.Message = llm.AssistantMessage(text, llm.ToolCall{ID: "c1", Name: "terminal", Arguments: `{"command":"kubectl get pods"}`})
			}
			if err := s.Append(ctx, sess.ID, m); err != nil {
				t.Fatal(err)
			}
		}
		return sess
	}
	f.longText = "kubernetes " + strings.Repeat("very long output line. ", 200) + "THE END"
	f.root = mk(&session.Session{Source: "cli", Title: "Cluster upgrade"},
		"before", "upgrade the kubernetes cluster to 1.31", "ok: draining nodes", "after")
	f.child = mk(&session.Session{Source: "cli", ParentID: f.root.ID}, "kubernetes upgrade continued", f.longText)
	f.other = mk(&session.Session{Source: "telegram", Title: "数据库迁移"}, "kubernetes question from chat", "数据库迁移完成了")
	f.current = mk(&session.Session{Source: "cli"}, "what did we do about kubernetes?")
	return f
}

// call runs the tool from the current session.
func (f *toolFixture) call(t *testing.T, args string) (map[string]any, error) {
	t.Helper()
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: f.current.ID})
	out, err := f.tool.Call(ctx, json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m, nil
}

func (f *toolFixture) mustCall(t *testing.T, args string) map[string]any {
	t.Helper()
	m, err := f.call(t, args)
	if err != nil {
		t.Fatalf("Call(%s): %v", args, err)
	}
	return m
}

func sessionsOf(m map[string]any) []map[string]any {
	var out []map[string]any
	list, _ := m["sessions"].([]any)
	for _, s := range list {
		out = append(out, s.(map[string]any))
	}
	return out
}

func TestSearchToolSpec(t *testing.T) {
	spec := session.NewSearchTool(nil).Spec()
	if spec.Name != "session_search" || spec.Toolset != "session_search" || !spec.ParallelSafe || !spec.Idempotent {
		t.Errorf("spec = %+v", spec)
	}
	if !strings.Contains(spec.Description, "Use it when") || !strings.Contains(spec.Description, "Do not use it") {
		t.Errorf("description does not say when to use it and when not: %q", spec.Description)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		t.Fatalf("parameters are not JSON: %v", err)
	}
	for _, p := range []string{"query", "session_id", "limit", "context"} {
		if schema.Properties[p] == nil {
			t.Errorf("parameters lack %q", p)
		}
	}
}

func TestSearchToolDiscovery(t *testing.T) {
	f := newToolFixture(t)
	res := f.mustCall(t, `{"query": "kubernetes"}`)
	got := map[string]bool{}
	for _, s := range sessionsOf(res) {
		id := s["session_id"].(string)
		root, _ := s["root_session_id"].(string)
		if root == "" {
			root = id
		}
		if got[root] {
			t.Errorf("lineage %s appears twice", root)
		}
		got[root] = true
		if id == f.current.ID {
			t.Errorf("the current session was not left out")
		}
		if !strings.Contains(s["snippet"].(string), ">>>") {
			t.Errorf("snippet %q does not mark the match", s["snippet"])
		}
		hits := 0
		for _, m := range s["messages"].([]any) {
			if m.(map[string]any)["hit"] == true {
				hits++
			}
		}
		if hits != 1 {
			t.Errorf("session %s shows %d hit messages, want 1", id, hits)
		}
	}
	if len(got) != 2 || !got[f.root.ID] || !got[f.other.ID] {
		t.Errorf("lineages found %v, want %s and %s", got, f.root.ID, f.other.ID)
	}

	res = f.mustCall(t, `{"query": "kubernetes", "include_current": true, "limit": 20}`)
	if n := len(sessionsOf(res)); n != 3 {
		t.Errorf("with include_current: %d lineages, want 3", n)
	}
	res = f.mustCall(t, `{"query": "kubernetes", "limit": 1}`)
	if n := len(sessionsOf(res)); n != 1 {
		t.Errorf("limit 1: %d sessions", n)
	}
	res = f.mustCall(t, `{"query": "数据库迁移"}`)
	if s := sessionsOf(res); len(s) != 1 || s[0]["session_id"] != f.other.ID {
		t.Errorf("Chinese query found %v", s)
	}
	res = f.mustCall(t, `{"query": "\"kubernetes AND * -( NEAR"}`)
	if _, ok := res["sessions"]; !ok {
		t.Errorf("query with FTS syntax: %v", res)
	}
	res = f.mustCall(t, `{"query": "zzzunknownzzz"}`)
	if len(sessionsOf(res)) != 0 || res["note"] == nil {
		t.Errorf("no-match result = %v", res)
	}
}

func TestSearchToolContextAndTruncation(t *testing.T) {
	f := newToolFixture(t)
	res := f.mustCall(t, `{"query": "1.31", "context": 1}`)
	s := sessionsOf(res)
	if len(s) != 1 {
		t.Fatalf("found %d sessions", len(s))
	}
	msgs := s[0]["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("context 1 gave %d messages, want 3", len(msgs))
	}
	if call := msgs[2].(map[string]any)["calls"].([]any); !strings.HasPrefix(call[0].(string), "terminal(") {
		t.Errorf("tool call shown as %v", call)
	}
	res = f.mustCall(t, `{"query": "output line", "context": 0}`)
	text := sessionsOf(res)[0]["messages"].([]any)[0].(map[string]any)["text"].(string)
	if len([]rune(text)) > 300 || !strings.Contains(text, ">>>output<<<") {
		t.Errorf("a long hit is not shown by its snippet: %d chars, %q", len([]rune(text)), text)
	}
	res = f.mustCall(t, `{"query": "continued", "context": 1}`)
	msgs = sessionsOf(res)[0]["messages"].([]any)
	text = msgs[len(msgs)-1].(map[string]any)["text"].(string)
	if len([]rune(text)) > 350 || !strings.Contains(text, "left out") || !strings.HasSuffix(text, "THE END") {
		t.Errorf("long context message not shortened to its ends: %d chars, %q", len([]rune(text)), text)
	}
}

func TestSearchToolReadAndRecent(t *testing.T) {
	f := newToolFixture(t)
	res := f.mustCall(t, `{"session_id": "`+f.root.ID+`"}`)
	if s := sessionsOf(res); len(s) != 1 || len(s[0]["messages"].([]any)) != 4 || s[0]["title"] != "Cluster upgrade" {
		t.Errorf("read = %v", res)
	}
	res = f.mustCall(t, `{"session_id": "`+f.root.ID+`", "query": "after"}`)
	if s := sessionsOf(res); len(s) != 1 || s[0]["session_id"] != f.root.ID {
		t.Errorf("search inside a session = %v", res)
	}
	res = f.mustCall(t, `{"limit": 2}`)
	s := sessionsOf(res)
	if res["mode"] != "recent" || len(s) != 2 || s[0]["session_id"] != f.other.ID || s[1]["session_id"] != f.child.ID {
		t.Errorf("recent = %v, want %s then %s (current left out)", res, f.other.ID, f.child.ID)
	}
}

func TestSearchToolErrors(t *testing.T) {
	f := newToolFixture(t)
	for args, code := range map[string]tool.Code{
		`{"session_id": "nope"}`:                  tool.CodeNotFound,
		`{"session_id": "nope", "query": "x"}`:    tool.CodeNotFound,
		`{"query": "x", "role": "system"}`:        tool.CodeInvalidArguments,
		`{"query": `:                              tool.CodeInvalidArguments,
		`{"query": "kubernetes", "limit": "two"}`: tool.CodeInvalidArguments,
	} {
		_, err := f.call(t, args)
		te, ok := tool.AsError(err)
		if !ok || te.Code != code {
			t.Errorf("Call(%s) error = %v, want code %s", args, err, code)
		}
	}
}
