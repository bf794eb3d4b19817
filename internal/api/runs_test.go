package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
)

// call sends a request to the server with key (none when empty) and
// returns the response.
func call(t *testing.T, ctx context.Context, srv *httptest.Server, key, method, path, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// runJSON is a run as the API shows it.
type runJSON struct {
	ID, Object, Status, Output, Error string
	SessionID                         string `json:"session_id"`
	StoppedReason                     string `json:"stopped_reason"`
	Usage                             struct {
		TotalTokens int `json:"total_tokens"`
	}
	PendingApprovals []struct {
		ApprovalID string `json:"approval_id"`
		Command    string
	} `json:"pending_approvals"`
}

// decode reads a JSON body, failing the test unless the status is want.
func decode[T any](t *testing.T, resp *http.Response, want int) T {
	t.Helper()
	var v T
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, want, b)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

// startRun posts a run and returns it.
func startRun(t *testing.T, srv *httptest.Server, body string) runJSON {
	t.Helper()
	return decode[runJSON](t, call(t, context.Background(), srv, "", "POST", "/v1/runs", body), http.StatusAccepted)
}

// sse is one server-sent event.
type sse struct {
	id, name string
	data     map[string]any
}

// watch follows a run's events until ctx ends or the stream does; the
// channel closes then.
func watch(t *testing.T, ctx context.Context, srv *httptest.Server, id string) <-chan sse {
	t.Helper()
	resp := call(t, ctx, srv, "", "GET", "/v1/runs/"+id+"/events", "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("events: status %d: %s", resp.StatusCode, b)
	}
	ch := make(chan sse, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		var e sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				e.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				e.name = line[7:]
			case strings.HasPrefix(line, "data: "):
				json.Unmarshal([]byte(line[6:]), &e.data)
			case line == "":
				ch <- e
				e = sse{}
			}
		}
	}()
	return ch
}

// until reads events up to the first named name, and returns them all.
func until(t *testing.T, ch <-chan sse, name string) []sse {
	t.Helper()
	var got []sse
	for e := range ch {
		got = append(got, e)
		if e.name == name {
			return got
		}
	}
	t.Fatalf("the stream ended without %s: %v", name, got)
	return nil
}

func names(es []sse) string {
	var n []string
	for _, e := range es {
		n = append(n, e.name)
	}
	return strings.Join(n, " ")
}

// scripted is a Run that streams a reply with a tool call and usage, and
// waits for release before it ends (or for its context).
func scripted(release <-chan struct{}) func(context.Context, api.Turn, agent.Sink) (*api.Result, error) {
	return func(ctx context.Context, tn api.Turn, sink agent.Sink) (*api.Result, error) {
		id := tn.SessionID
		if id == "" {
			id = "s-new"
		}
		tn.Started(id)
		sink.Event(agent.Event{Kind: agent.EventText, Text: "working on "})
		call := llm.ToolCall{ID: "call_1", Name: "terminal", Arguments: `{"command":"ls"}`}
		sink.Event(agent.Event{Kind: agent.EventToolStarted, Tool: &agent.ToolEvent{Call: call}})
		sink.Event(agent.Event{Kind: agent.EventToolFinished, Tool: &agent.ToolEvent{Call: call, Content: "a\nb"}})
		sink.Event(agent.Event{Kind: agent.EventUsage, Usage: llm.Usage{InputTokens: 3, OutputTokens: 4}})
		select {
		case <-release:
		case <-ctx.Done():
			return &api.Result{SessionID: id, Result: &agent.Result{Final: "working on ", Stopped: agent.StopInterrupted, Err: ctx.Err()}}, nil
		}
		sink.Event(agent.Event{Kind: agent.EventText, Text: tn.Text})
		return &api.Result{SessionID: id, Result: &agent.Result{Final: "working on " + tn.Text, Stopped: agent.StopDone, Usage: llm.Usage{InputTokens: 3, OutputTokens: 4}}}, nil
	}
}

// A run answers 202 with its id at once and goes on; its events replay
// from the start to a watcher that comes late and end with the terminal
// event; GET shows the output, usage and session.
func TestRunEventsAndState(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, api.Options{Run: scripted(release)})
	r := startRun(t, srv, `{"input":"the report","session_id":"s-1"}`)
	if !strings.HasPrefix(r.ID, "run_") || len(r.ID) < 20 || r.Object != "run" || r.Status != "running" || r.SessionID != "s-1" {
		t.Fatalf("POST /v1/runs = %+v", r)
	}
	if other := startRun(t, srv, `{"input":"x"}`); other.ID == r.ID {
		t.Fatalf("two runs share the id %s", r.ID)
	}
	first := watch(t, context.Background(), srv, r.ID)
	got := until(t, first, "usage")
	if n := names(got); n != "run.started text.delta tool.started tool.finished usage" {
		t.Fatalf("events = %s", n)
	}
	if got[3].data["content"] != "a\nb" || got[2].data["arguments"] != `{"command":"ls"}` || got[0].id != "1" {
		t.Errorf("tool events = %+v", got[2:4])
	}
	close(release)
	if e := until(t, first, "run.completed"); e[len(e)-1].data["output"] != "working on the report" {
		t.Errorf("run.completed = %+v", e[len(e)-1].data)
	}
	if _, open := <-first; open {
		t.Errorf("the stream goes on after run.completed")
	}
	late := until(t, watch(t, context.Background(), srv, r.ID), "run.completed")
	if n := names(late); n != "run.started text.delta tool.started tool.finished usage text.delta run.completed" {
		t.Errorf("a late watcher got %s", n)
	}
	v := decode[runJSON](t, call(t, context.Background(), srv, "", "GET", "/v1/runs/"+r.ID, ""), http.StatusOK)
	if v.Status != "completed" || v.Output != "working on the report" || v.Usage.TotalTokens != 7 || v.StoppedReason != "done" {
		t.Errorf("GET = %+v", v)
	}
}

// A body the server cannot take names its field and what is accepted.
func TestRunRequestRefused(t *testing.T) {
	srv := newServer(t, api.Options{})
	for body, want := range map[string]string{
		`{"input":""}`:                       "input",
		`{"input":"  "}`:                     "input",
		`{}`:                                 "input",
		`{"input":42}`:                       "input",
		`{"input":"x","sesion_id":"s-1"}`:    "sesion_id",
		`{"input":"x","session_id":" s-1"}`:  "session_id",
		`{"input":"x","instructions":"sys"}`: "instructions",
		`{"input":"x","model":"gpt-9"}`:      "model",
	} {
		resp := call(t, context.Background(), srv, "", "POST", "/v1/runs", body)
		msg, param := apiErr(t, resp)
		if resp.StatusCode/100 != 4 || param != want || !strings.Contains(msg, want) {
			t.Errorf("%s: status %d, param %q: %s", body, resp.StatusCode, param, msg)
		}
	}
	resp := call(t, context.Background(), srv, "", "POST", "/v1/runs", `not json`)
	if msg, _ := apiErr(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, "not a JSON run request") {
		t.Errorf("not JSON: status %d: %s", resp.StatusCode, msg)
	}
	for _, path := range []string{"/v1/runs/run_nope", "/v1/runs/run_nope/events"} {
		resp := call(t, context.Background(), srv, "", "GET", path, "")
		if msg, _ := apiErr(t, resp); resp.StatusCode != http.StatusNotFound || !strings.Contains(msg, `"run_nope" is not known`) {
			t.Errorf("%s: status %d: %s", path, resp.StatusCode, msg)
		}
	}
}

// Stop cancels the turn and answers with the run cancelled; a run that
// has ended cannot be stopped again.
func TestRunStop(t *testing.T) {
	srv := newServer(t, api.Options{Run: scripted(make(chan struct{}))})
	r := startRun(t, srv, `{"input":"forever"}`)
	events := watch(t, context.Background(), srv, r.ID)
	until(t, events, "usage")
	v := decode[runJSON](t, call(t, context.Background(), srv, "", "POST", "/v1/runs/"+r.ID+"/stop", ""), http.StatusOK)
	if v.Status != "cancelled" || v.Output != "working on " {
		t.Errorf("stop = %+v", v)
	}
	until(t, events, "run.cancelled")
	resp := call(t, context.Background(), srv, "", "POST", "/v1/runs/"+r.ID+"/stop", "")
	if msg, _ := apiErr(t, resp); resp.StatusCode != http.StatusConflict || !strings.Contains(msg, "cancelled already") {
		t.Errorf("a second stop: status %d: %s", resp.StatusCode, msg)
	}
}

// A watcher that goes away, and the client that started the run, do not
// end it: it completes, and a new watcher sees it complete.
func TestRunOutlivesDisconnectingClient(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, api.Options{Run: scripted(release)})
	ctx, cancel := context.WithCancel(context.Background())
	resp := call(t, ctx, srv, "", "POST", "/v1/runs", `{"input":"the rest"}`)
	r := decode[runJSON](t, resp, http.StatusAccepted)
	until(t, watch(t, ctx, srv, r.ID), "usage")
	cancel()
	close(release)
	e := until(t, watch(t, context.Background(), srv, r.ID), "run.completed")
	if out := e[len(e)-1].data["output"]; out != "working on the rest" {
		t.Errorf("output = %v", out)
	}
}

// Runs take the slots of api.max_concurrent_runs with chat completions;
// one more is 429, and a finished run gives its slot back.
func TestRunsTakeSlots(t *testing.T) {
	release := make(chan struct{})
	srv := newServer(t, api.Options{MaxConcurrentRuns: 1, Run: scripted(release)})
	r := startRun(t, srv, `{"input":"one"}`)
	events := watch(t, context.Background(), srv, r.ID)
	for path, body := range map[string]string{"/v1/runs": `{"input":"two"}`, "/v1/chat/completions": hello} {
		resp := call(t, context.Background(), srv, "", "POST", path, body)
		if msg, _ := apiErr(t, resp); resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(msg, "max_concurrent_runs") {
			t.Errorf("%s: status %d: %s", path, resp.StatusCode, msg)
		}
	}
	close(release)
	until(t, events, "run.completed")
	startRun(t, srv, `{"input":"three"}`)
}

// Finished runs are forgotten after RunsKeptFor, and beyond RunsKept the
// oldest first: a server that runs for months does not keep them all.
func TestFinishedRunsForgotten(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	release := make(chan struct{})
	close(release)
	srv := newServer(t, api.Options{Run: scripted(release), RunsKept: 2, RunsKeptFor: time.Hour, Clock: clk})
	var ids []string
	for range 3 {
		r := startRun(t, srv, `{"input":"x"}`)
		until(t, watch(t, context.Background(), srv, r.ID), "run.completed")
		ids = append(ids, r.ID)
		clk.Advance(time.Minute)
	}
	status := func(id string) int {
		return call(t, context.Background(), srv, "", "GET", "/v1/runs/"+id, "").StatusCode
	}
	if status(ids[0]) != http.StatusNotFound || status(ids[1]) != http.StatusOK || status(ids[2]) != http.StatusOK {
		t.Errorf("with 2 kept: %d %d %d", status(ids[0]), status(ids[1]), status(ids[2]))
	}
	clk.Advance(time.Hour)
	if status(ids[2]) != http.StatusNotFound {
		t.Errorf("a run finished an hour ago is still kept")
	}
}

// Every runs endpoint needs the key.
func TestRunsNeedKey(t *testing.T) {
	srv := newServer(t, api.Options{Keys: []string{"sk-runs"}})
	for _, ep := range []string{"POST /v1/runs", "GET /v1/runs/run_x", "GET /v1/runs/run_x/events", "POST /v1/runs/run_x/approval", "POST /v1/runs/run_x/stop"} {
		method, path, _ := strings.Cut(ep, " ")
		if resp := call(t, context.Background(), srv, "", method, path, `{"input":"x"}`); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without a key: status %d", ep, resp.StatusCode)
		}
		if resp := call(t, context.Background(), srv, "sk-runs", method, path, `{"input":"x"}`); resp.StatusCode == http.StatusUnauthorized {
			t.Errorf("%s with the key: 401", ep)
		}
	}
}

// A run keeps a bounded log of its events: a watcher that comes after
// the oldest were dropped is told how many, then gets the rest.
func TestRunEventLogBounded(t *testing.T) {
	chunk := strings.Repeat("x", 1024)
	srv := newServer(t, api.Options{Run: func(_ context.Context, tn api.Turn, sink agent.Sink) (*api.Result, error) {
		tn.Started("s-1")
		for range 1024 {
			sink.Event(agent.Event{Kind: agent.EventText, Text: chunk})
		}
		return &api.Result{SessionID: "s-1", Result: &agent.Result{Final: "done", Stopped: agent.StopDone}}, nil
	}})
	r := startRun(t, srv, `{"input":"a lot"}`)
	until(t, watch(t, context.Background(), srv, r.ID), "run.completed")
	got := until(t, watch(t, context.Background(), srv, r.ID), "run.completed")
	if got[0].name != "events.dropped" || got[0].data["dropped"].(float64) < 400 || len(got) > 600 {
		t.Errorf("%d events, the first %s %v", len(got), got[0].name, got[0].data)
	}
}

// A turn that cannot start (an unknown session) or fails ends the run
// failed, with the message the client needs.
func TestRunFailed(t *testing.T) {
	srv := newServer(t, api.Options{Run: func(context.Context, api.Turn, agent.Sink) (*api.Result, error) {
		return nil, &api.Error{Status: http.StatusNotFound, Message: `X-Hermes-Session-Id: "s-x" is not a session of the API`}
	}})
	r := startRun(t, srv, `{"input":"x","session_id":"s-x"}`)
	got := until(t, watch(t, context.Background(), srv, r.ID), "run.failed")
	if msg, _ := got[len(got)-1].data["error"].(string); !strings.HasPrefix(msg, `session_id: "s-x" is not a session of the API; leave session_id out`) {
		t.Errorf("run.failed = %v", got[len(got)-1].data)
	}
	v := decode[runJSON](t, call(t, context.Background(), srv, "", "GET", "/v1/runs/"+r.ID, ""), http.StatusOK)
	if v.Status != "failed" || !strings.Contains(v.Error, "not a session") {
		t.Errorf("GET = %+v", v)
	}
}
