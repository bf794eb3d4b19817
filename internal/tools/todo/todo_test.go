package todo

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

func call(t *testing.T, td *Todo, sid, args string) (Result, error) {
	t.Helper()
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: sid})
	v, err := td.Call(ctx, json.RawMessage(args))
	if err != nil {
		return Result{}, err
	}
	return v.(Result), nil
}

func mustCall(t *testing.T, td *Todo, sid, args string) Result {
	t.Helper()
	r, err := call(t, td, sid, args)
	if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	return r
}

func wantInvalid(t *testing.T, err error, mentions ...string) {
	t.Helper()
	te, ok := tool.AsError(err)
	if !ok || te.Code != tool.CodeInvalidArguments {
		t.Fatalf("error = %v, want invalid_arguments", err)
	}
	for _, m := range mentions {
		if !strings.Contains(te.Message, m) {
			t.Errorf("message %q does not mention %q", te.Message, m)
		}
	}
}

func ids(r Result) string {
	var b []string
	for _, it := range r.Todos {
		b = append(b, it.ID+":"+it.Status)
	}
	return strings.Join(b, " ")
}

const plan = `{"todos": [
	{"id": "1", "content": "Read the failing test", "status": "completed"},
	{"id": "2", "content": "Fix the parser", "status": "in_progress"},
	{"id": "3", "content": "Run the suite", "status": "pending"}
]}`

func TestReadEmpty(t *testing.T) {
	r := mustCall(t, New(), "s", `{}`)
	if r.Todos == nil || len(r.Todos) != 0 || r.Summary != (Summary{}) {
		t.Fatalf("empty read = %+v", r)
	}
	if b, _ := json.Marshal(r); string(b) != `{"todos":[],"summary":{"total":0,"pending":0,"in_progress":0,"completed":0,"cancelled":0}}` {
		t.Fatalf("JSON = %s", b)
	}
}

func TestReplaceAndRead(t *testing.T) {
	td := New()
	r := mustCall(t, td, "s", plan)
	want := Summary{Total: 3, Pending: 1, InProgress: 1, Completed: 1}
	if ids(r) != "1:completed 2:in_progress 3:pending" || r.Summary != want {
		t.Fatalf("write = %+v", r)
	}
	if r2 := mustCall(t, td, "s", `{"merge": false}`); !reflect.DeepEqual(r, r2) {
		t.Fatalf("read = %+v, want %+v", r2, r)
	}
	// Replacing drops what the new list does not name.
	r = mustCall(t, td, "s", `{"todos": [{"id": "a", "content": "New plan"}]}`)
	if ids(r) != "a:pending" || r.Todos[0].Content != "New plan" {
		t.Fatalf("replace = %+v", r)
	}
	if r := mustCall(t, td, "s", `{"todos": []}`); len(r.Todos) != 0 {
		t.Fatalf("clear = %+v", r)
	}
}

func TestMerge(t *testing.T) {
	td := New()
	mustCall(t, td, "s", plan)
	r := mustCall(t, td, "s", `{"merge": true, "todos": [
		{"id": "2", "status": "completed"},
		{"id": "3", "content": "Run the whole suite", "status": "in_progress"},
		{"id": "4", "content": "Write the changelog"}
	]}`)
	if ids(r) != "1:completed 2:completed 3:in_progress 4:pending" {
		t.Fatalf("merge = %s", ids(r))
	}
	if r.Todos[1].Content != "Fix the parser" || r.Todos[2].Content != "Run the whole suite" {
		t.Fatalf("contents = %+v", r.Todos)
	}
	if r.Summary != (Summary{Total: 4, Pending: 1, InProgress: 1, Completed: 2}) {
		t.Fatalf("summary = %+v", r.Summary)
	}
	// Merging the same update again changes nothing: the tool is idempotent.
	again := mustCall(t, td, "s", `{"merge": true, "todos": [{"id": "2", "status": "completed"}]}`)
	if !reflect.DeepEqual(again.Todos, r.Todos) {
		t.Fatalf("repeat merge changed the list: %s", ids(again))
	}
}

func TestValidation(t *testing.T) {
	td := New()
	mustCall(t, td, "s", plan)
	before := mustCall(t, td, "s", `{}`)
	for _, tc := range []struct {
		args     string
		mentions []string
	}{
		{`{"todos": [{"id": "x", "content": "a"}, {"id": "y", "content": "b"}, {"id": "x", "content": "c"}]}`, []string{`todos[2].id "x"`, "todos[0]"}},
		{`{"merge": true, "todos": [{"id": " 2 ", "status": "completed"}, {"id": "2", "status": "pending"}]}`, []string{`"2"`}},
		{`{"todos": [{"id": "  ", "content": "a"}]}`, []string{"todos[0].id", "empty"}},
		{`{"todos": [{"id": "n"}]}`, []string{"todos[0]", `"n"`, "content"}},
		{`{"merge": true, "todos": [{"id": "new", "status": "pending"}]}`, []string{"new item", "content"}},
		{`{"merge": true, "todos": [{"id": "1", "content": " "}]}`, []string{"todos[0].content", "empty"}},
		{`{"todos": [{"id": "1", "content": "a", "status": "done"}]}`, []string{`"done"`, "in_progress"}},
		{`{"todos": [{"id": "1", "content": "` + strings.Repeat("é", MaxContentChars+1) + `"}]}`, []string{"4001 characters", "4000"}},
		{`{"todos": "not a list"}`, []string{"todos"}},
	} {
		_, err := call(t, td, "s", tc.args)
		wantInvalid(t, err, tc.mentions...)
	}
	if after := mustCall(t, td, "s", `{}`); !reflect.DeepEqual(before, after) {
		t.Fatalf("a rejected write changed the list: %s", ids(after))
	}
}

func TestItemLimit(t *testing.T) {
	td := New()
	items := make([]string, MaxItems)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id": "%d", "content": "step %d"}`, i, i)
	}
	mustCall(t, td, "s", `{"todos": [`+strings.Join(items, ",")+`]}`)
	_, err := call(t, td, "s", `{"merge": true, "todos": [{"id": "one-more", "content": "x"}]}`)
	wantInvalid(t, err, "101 items", "100")
	if r := mustCall(t, td, "s", `{"merge": true, "todos": [{"id": "5", "status": "completed"}]}`); r.Summary.Total != MaxItems {
		t.Fatalf("update at the limit: total %d", r.Summary.Total)
	}
}

func TestSessionsIsolated(t *testing.T) {
	td := New()
	mustCall(t, td, "a", plan)
	if r := mustCall(t, td, "b", `{}`); len(r.Todos) != 0 {
		t.Fatalf("session b sees a's list: %s", ids(r))
	}
	mustCall(t, td, "b", `{"todos": [{"id": "b1", "content": "other"}]}`)
	if r := mustCall(t, td, "a", `{}`); r.Summary.Total != 3 {
		t.Fatalf("session a changed: %s", ids(r))
	}
	td.Forget("a")
	if r := mustCall(t, td, "a", `{}`); len(r.Todos) != 0 {
		t.Fatalf("Forget kept %s", ids(r))
	}
}

func TestResultIsACopy(t *testing.T) {
	td := New()
	r := mustCall(t, td, "s", plan)
	mustCall(t, td, "s", `{"merge": true, "todos": [{"id": "3", "status": "cancelled"}]}`)
	if r.Todos[2].Status != StatusPending {
		t.Fatal("an earlier result changed with the list")
	}
	items := td.Items("s")
	items[0].Status = StatusPending
	if td.Items("s")[0].Status != StatusCompleted {
		t.Fatal("Items exposed the stored list")
	}
}

func TestLoadFromLastResult(t *testing.T) {
	td := New()
	last := mustCall(t, td, "old", plan)
	data, err := json.Marshal(last) // as stored in the session's history
	if err != nil {
		t.Fatal(err)
	}
	var decoded Result
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatal(err)
	}
	td.Load("resumed", decoded.Todos)
	if r := mustCall(t, td, "resumed", `{}`); !reflect.DeepEqual(r, last) {
		t.Fatalf("loaded %+v, want %+v", r, last)
	}

	// History is cleaned, not rejected.
	td.Load("s", []Item{
		{ID: "", Content: "no id", Status: "pending"},
		{ID: "a", Content: "first a", Status: "pending"},
		{ID: " b ", Content: " b ", Status: "DONE"},
		{ID: "a", Content: "second a", Status: "Completed"},
	})
	want := []Item{{ID: "b", Content: "b", Status: "pending"}, {ID: "a", Content: "second a", Status: "completed"}}
	if got := td.Items("s"); !reflect.DeepEqual(got, want) {
		t.Fatalf("Load cleaned to %+v, want %+v", got, want)
	}
	td.Load("s", nil)
	if got := td.Items("s"); len(got) != 0 {
		t.Fatalf("Load(nil) kept %+v", got)
	}
}

func TestConcurrentCalls(t *testing.T) {
	td := New()
	var wg sync.WaitGroup
	for s := range 4 {
		sid := fmt.Sprint("session-", s)
		for w := range 8 {
			wg.Go(func() {
				for i := range 12 {
					id := fmt.Sprintf("w%d-%d", w, i)
					args := fmt.Sprintf(`{"merge": true, "todos": [{"id": %q, "content": "task", "status": "in_progress"}]}`, id)
					if _, err := call(t, td, sid, args); err != nil {
						t.Error(err)
						return
					}
					_ = td.Items(sid)
				}
			})
		}
	}
	wg.Wait()
	for s := range 4 {
		if n := len(td.Items(fmt.Sprint("session-", s))); n != 8*12 {
			t.Errorf("session %d holds %d items, want %d: a write was lost", s, n, 8*12)
		}
	}
}

func TestSpec(t *testing.T) {
	s := New().Spec()
	if s.Name != "todo" || s.Toolset != "todo" || s.ParallelSafe || !s.Idempotent {
		t.Fatalf("spec = %+v", s)
	}
	var schema map[string]any
	if err := json.Unmarshal(s.Parameters, &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if !strings.Contains(s.Description, "in_progress") {
		t.Fatalf("description not embedded")
	}
}

func TestResumeFromHistory(t *testing.T) {
	td := New()
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "old"})
	out, err := td.Call(ctx, json.RawMessage(`{"todos":[{"id":"1","content":"build","status":"in_progress"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ok, _ := json.Marshal(map[string]any{"status": "ok", "data": out})
	later, _ := json.Marshal(map[string]any{"status": "error", "error_code": "invalid_arguments", "message": "no"})
	history := []llm.Message{
		llm.UserMessage("plan it"),
		llm.ToolResultMessage("c1", "todo", string(ok)),
		llm.ToolResultMessage("c2", "todo", string(later)),
		llm.ToolResultMessage("c3", "other", string(ok)),
	}
	fresh := New()
	fresh.Resume("resumed", history)
	got, err := fresh.Call(tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "resumed"}), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := got.(Result); len(r.Todos) != 1 || r.Todos[0].Content != "build" || r.Todos[0].Status != "in_progress" {
		t.Errorf("resumed list = %+v, want the last ok result's", r.Todos)
	}
}
