package team

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/tool"
)

// coordinator is a run's tools in a registry, called as the dispatcher
// calls them: arguments are validated against the schema first.
type coordinator struct {
	t   *testing.T
	reg *tool.Registry
}

func newCoordinator(t *testing.T, sc Scope) coordinator {
	reg := tool.NewRegistry()
	for _, tl := range Tools(sc) {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	return coordinator{t, reg}
}

// call returns the tool's data, or its error's code and message.
func (c coordinator) call(name, args string) (map[string]any, *tool.Error) {
	c.t.Helper()
	raw, perr := c.reg.Prepare(name, args)
	if perr != nil {
		return nil, perr
	}
	tl, _ := c.reg.Get(name)
	data, err := tl.Call(context.Background(), raw)
	if err != nil {
		te, ok := tool.AsError(err)
		if !ok {
			c.t.Fatalf("%s: unclassified error %v", name, err)
		}
		return nil, te
	}
	b, _ := json.Marshal(data)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatal(err)
	}
	return m, nil
}

func (c coordinator) ok(name, args string) map[string]any {
	c.t.Helper()
	m, err := c.call(name, args)
	if err != nil {
		c.t.Fatalf("%s %s: %v", name, args, err)
	}
	return m
}

func (c coordinator) refused(name, args string, code tool.Code, want ...string) string {
	c.t.Helper()
	_, err := c.call(name, args)
	if err == nil {
		c.t.Fatalf("%s %s: accepted", name, args)
	}
	if err.Code != code {
		c.t.Errorf("%s %s: code %s, want %s (%s)", name, args, err.Code, code, err.Message)
	}
	for _, w := range want {
		if !strings.Contains(err.Message, w) {
			c.t.Errorf("%s %s: %q does not say %q", name, args, err.Message, w)
		}
	}
	return err.Message
}

func TestToolsPostWaitRead(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		r := mustRun(t, s)
		co := newCoordinator(t, Scope{Store: s, Run: r.ID, Roles: []string{"search", "write"}})
		a := co.ok("task_post", `{"role":"search","description":"find sources"}`)
		id := int64(a["task"].(float64))
		b := co.ok("task_post", `{"role":"write","description":"write it up","inputs":[`+itoa(id)+`]}`)
		if a["state"] != "ready" || b["state"] != "waiting" {
			t.Fatalf("posted %v, %v", a, b)
		}
		mustClaim(t, s, "search", "h")
		if err := s.Complete(context.Background(), id, "h", Result{Summary: "2 sources", Artifacts: []Artifact{
			{Name: "list", Kind: KindText, Content: "a, b"}, {Name: "meta", Kind: KindJSON, Content: `{"n":2}`}}}); err != nil {
			t.Fatal(err)
		}
		w := co.ok("task_wait", `{"ids":[`+itoa(id)+`]}`)
		task := w["tasks"].([]any)[0].(map[string]any)
		if w["finished"] != true || task["summary"] != "2 sources" || len(task["artifacts"].([]any)) != 2 {
			t.Fatalf("wait %v", w)
		}
		if got := co.ok("artifact_read", `{"task":`+itoa(id)+`,"name":"list"}`); got["content"] != "a, b" {
			t.Fatalf("read %v", got)
		}
		if got := co.ok("artifact_read", `{"task":`+itoa(id)+`,"name":"meta"}`); got["content"].(map[string]any)["n"] != 2.0 {
			t.Fatalf("read %v", got)
		}
		if got := co.ok("artifact_read", `{"task":`+itoa(id)+`}`); len(got["artifacts"].([]any)) != 2 {
			t.Fatalf("list %v", got)
		}
		co.refused("artifact_read", `{"task":`+itoa(id)+`,"name":"nope"}`, tool.CodeNotFound, `no artifact "nope"`, "list its artifacts")
	})
}

// TestToolsScopedToTheirRun gives the coordinator of run 1 the ids of run
// 2's tasks in every place an id goes: each is refused exactly as an id
// that does not exist, and nothing of run 2 is read or changed.
func TestToolsScopedToTheirRun(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r1, r2 := mustRun(t, s), mustRun(t, s)
		mine := mustPost(t, s, r1.ID, "search")
		theirs := mustPost(t, s, r2.ID, "search")
		mustClaim(t, s, "search", "h")
		mustClaim(t, s, "search", "h2")
		if err := s.Complete(ctx, theirs.ID, "h2", Result{Artifacts: []Artifact{{Name: "secret", Kind: KindText, Content: "run 2 only"}}}); err != nil {
			t.Fatal(err)
		}
		co := newCoordinator(t, Scope{Store: s, Run: r1.ID})
		for _, id := range []int64{theirs.ID, 999} {
			msgs := []string{
				co.refused("artifact_read", `{"task":`+itoa(id)+`,"name":"secret"}`, tool.CodeNotFound),
				co.refused("artifact_read", `{"task":`+itoa(id)+`}`, tool.CodeNotFound),
				co.refused("task_wait", `{"ids":[`+itoa(mine.ID)+`,`+itoa(id)+`]}`, tool.CodeNotFound),
			}
			for _, m := range msgs {
				if m != "no task "+itoa(id)+" in this run; use the ids task_post returned" {
					t.Errorf("id %d: %q", id, m)
				}
			}
			co.refused("task_post", `{"role":"write","description":"d","inputs":[`+itoa(id)+`]}`, tool.CodeNotFound, "inputs "+itoa(id)+" are not tasks of run 1")
		}
		if ts, _ := s.Tasks(ctx, r2.ID); len(ts) != 1 {
			t.Fatalf("run 2 has %d tasks", len(ts))
		}
	})
}

func TestToolsRefuseBadArguments(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		r := mustRun(t, s)
		co := newCoordinator(t, Scope{Store: s, Run: r.ID, Roles: []string{"search", "write"}})
		inv := tool.CodeInvalidArguments
		co.refused("task_post", `{"role":"admin","description":"d"}`, inv, `role "admin" is not one of this team's; use one of search, write`)
		co.refused("task_post", `{"role":"search"}`, inv, "description")
		co.refused("task_post", `{"role":"search","description":" "}`, inv, "description is empty")
		co.refused("task_post", `{"role":"search","description":"d","max_attempts":50}`, inv, "max_attempts")
		co.refused("task_post", `{"role":"search","description":"d","holder":"x"}`, inv, "holder")
		co.refused("task_post", `{"role":"search","description":"d","inputs":["one"]}`, inv, "inputs")
		co.refused("task_wait", `{"ids":[]}`, inv, "ids")
		co.refused("task_wait", `{"ids":[1],"timeout_seconds":4000}`, inv, "timeout_seconds")
		co.refused("artifact_read", `{"name":"x"}`, inv, "task")
		if ts, _ := s.Tasks(context.Background(), r.ID); len(ts) != 0 {
			t.Fatalf("refused posts left %d tasks", len(ts))
		}
		// Called directly, without the schema check, the tool still refuses.
		post := Tools(Scope{Store: s, Run: r.ID})[0]
		if _, err := post.Call(context.Background(), json.RawMessage(`{"role":"","description":"d"}`)); err == nil || !strings.Contains(err.Error(), "role is empty") {
			t.Fatalf("empty role: %v", err)
		}
		wait := Tools(Scope{Store: s, Run: r.ID})[1]
		if _, err := wait.Call(context.Background(), json.RawMessage(`{"ids":[1],"timeout_seconds":-5}`)); err == nil || !strings.Contains(err.Error(), "timeout_seconds -5") {
			t.Fatalf("negative timeout: %v", err)
		}
	})
}

func TestTaskWaitTimesOut(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		co := newCoordinator(t, Scope{Store: s, Run: r.ID})
		type answer struct {
			data map[string]any
			err  *tool.Error
		}
		done := make(chan answer)
		go func() {
			m, err := co.call("task_wait", `{"ids":[`+itoa(a.ID)+`],"timeout_seconds":10}`)
			done <- answer{m, err}
		}()
		clk.BlockUntil(2) // the timeout and the poll
		clk.Advance(10 * time.Second)
		ans := <-done
		if ans.err != nil {
			t.Fatal(ans.err)
		}
		w := ans.data
		if w["finished"] != false || !strings.Contains(w["note"].(string), "call task_wait again") {
			t.Fatalf("wait %v", w)
		}
	})
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestToolsRedactWorkersSecrets has a worker's error, summary and
// artifacts quote keys: the coordinator's model reads them redacted.
func TestToolsRedactWorkersSecrets(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
		a, err := s.Post(ctx, r.ID, Post{Role: "search", Description: "d", MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		b := mustPost(t, s, r.ID, "search")
		mustClaim(t, s, "search", "h")
		if _, err := s.Fail(ctx, a.ID, "h", "POST /v1 with Authorization: Bearer "+key+": 401"); err != nil {
			t.Fatal(err)
		}
		mustClaim(t, s, "search", "h")
		if err := s.Complete(ctx, b.ID, "h", Result{Summary: "used " + key, Artifacts: []Artifact{
			{Name: "t", Kind: KindText, Content: "key=" + key},
			{Name: "j", Kind: KindJSON, Content: `{"api_key":"` + key + `"}`}}}); err != nil {
			t.Fatal(err)
		}
		if stored := mustState(t, s, a.ID, StateFailed); strings.Contains(stored.Error, key) {
			t.Fatalf("stored error %q", stored.Error)
		}
		co := newCoordinator(t, Scope{Store: s, Run: r.ID})
		outs := []map[string]any{
			co.ok("task_wait", `{"ids":[`+itoa(a.ID)+`,`+itoa(b.ID)+`]}`),
			co.ok("artifact_read", `{"task":`+itoa(b.ID)+`,"name":"t"}`),
			co.ok("artifact_read", `{"task":`+itoa(b.ID)+`,"name":"j"}`),
		}
		for _, o := range outs {
			j, _ := json.Marshal(o)
			if strings.Contains(string(j), key) || !strings.Contains(string(j), "REDACTED") {
				t.Errorf("the model would read %s", j)
			}
		}
	})
}
