package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/safety"
)

// guarded is a Run whose turn asks hermes's approval policy about the
// command in its input, as the terminal tool does, and answers "ran" or
// the policy's refusal.
func guarded(p *safety.Policy) func(context.Context, api.Turn, agent.Sink) (*api.Result, error) {
	return func(ctx context.Context, tn api.Turn, sink agent.Sink) (*api.Result, error) {
		id := "s-" + tn.Text
		tn.Started(id)
		final := "ran"
		if err := p.For(id, safety.Asker{Prompter: tn.Prompter}).ApproveCommand(ctx, tn.Text); err != nil {
			final = err.Error()
		}
		stopped := agent.StopDone
		if ctx.Err() != nil {
			stopped = agent.StopInterrupted
		}
		return &api.Result{SessionID: id, Result: &agent.Result{Final: final, Stopped: stopped}}, nil
	}
}

// answer posts an answer to a run's approval.
func answer(t *testing.T, srv *httptest.Server, runID, body string) *http.Response {
	t.Helper()
	return call(t, context.Background(), srv, "", "POST", "/v1/runs/"+runID+"/approval", body)
}

// pending starts a run of command and returns it and its events once it
// waits for approval, with the approval's id.
func pending(t *testing.T, srv *httptest.Server, command string) (runJSON, <-chan sse, string) {
	t.Helper()
	r := startRun(t, srv, `{"input":"`+command+`"}`)
	events := watch(t, context.Background(), srv, r.ID)
	got := until(t, events, "approval.required")
	req := got[len(got)-1].data
	if req["command"] != command || req["rule"] != "recursive_delete" || req["description"] == "" {
		t.Fatalf("approval.required = %v", req)
	}
	return r, events, req["approval_id"].(string)
}

// A run's dangerous command waits for the client: once runs it; an
// answer that names another run's approval, a missing or made-up id, or
// an answer given twice are refused, and change nothing.
func TestRunApprovalAnsweredOverHTTP(t *testing.T) {
	srv := newServer(t, api.Options{Run: guarded(&safety.Policy{Mode: safety.ModeManual})})
	a, aEvents, aID := pending(t, srv, "rm -rf build-a")
	b, bEvents, bID := pending(t, srv, "rm -rf build-b")
	if aID == bID || !strings.HasPrefix(aID, "appr_") {
		t.Fatalf("approval ids %q %q", aID, bID)
	}
	v := decode[runJSON](t, call(t, context.Background(), srv, "", "GET", "/v1/runs/"+a.ID, ""), http.StatusOK)
	if len(v.PendingApprovals) != 1 || v.PendingApprovals[0].ApprovalID != aID || v.PendingApprovals[0].Command != "rm -rf build-a" {
		t.Errorf("GET shows %+v", v.PendingApprovals)
	}
	for body, want := range map[string]string{
		`{"approval_id":"` + bID + `","answer":"once"}`: "is not pending in run " + a.ID,
		`{"approval_id":"appr_guess","answer":"once"}`:  "is not pending",
	} {
		resp := answer(t, srv, a.ID, body)
		if msg, param := apiErr(t, resp); resp.StatusCode != http.StatusConflict || param != "approval_id" || !strings.Contains(msg, want) {
			t.Errorf("%s: status %d: %s", body, resp.StatusCode, msg)
		}
	}
	for body, param := range map[string]string{
		`{"answer":"once"}`:                             "approval_id",
		`{"approval_id":"` + aID + `","answer":"yes"}`:  "answer",
		`{"approval_id":"` + aID + `"}`:                 "answer",
		`{"approval_id":"` + aID + `","answer":"ONCE"}`: "answer",
	} {
		resp := answer(t, srv, a.ID, body)
		if msg, p := apiErr(t, resp); resp.StatusCode != http.StatusBadRequest || p != param || !strings.Contains(msg, param) {
			t.Errorf("%s: status %d, param %q: %s", body, resp.StatusCode, p, msg)
		}
	}
	resp := answer(t, srv, "run_nope", `{"approval_id":"`+aID+`","answer":"once"}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown run: status %d", resp.StatusCode)
	}
	decode[map[string]any](t, answer(t, srv, a.ID, `{"approval_id":"`+aID+`","answer":"once"}`), http.StatusOK)
	got := until(t, aEvents, "run.completed")
	if res := got[len(got)-2]; res.name != "approval.resolved" || res.data["answer"] != "once" {
		t.Errorf("before the end: %s %v", res.name, res.data)
	}
	if out := got[len(got)-1].data["output"]; out != "ran" {
		t.Errorf("answered once, the run says %v", out)
	}
	resp = answer(t, srv, a.ID, `{"approval_id":"`+aID+`","answer":"always"}`)
	if msg, _ := apiErr(t, resp); resp.StatusCode != http.StatusConflict || !strings.Contains(msg, "waits for no approval") {
		t.Errorf("answered twice: status %d: %s", resp.StatusCode, msg)
	}
	// b still waits: a's answer was a's alone.
	decode[map[string]any](t, answer(t, srv, b.ID, `{"approval_id":"`+bID+`","answer":"deny"}`), http.StatusOK)
	got = until(t, bEvents, "run.completed")
	if out, _ := got[len(got)-1].data["output"].(string); !strings.Contains(out, "denied") {
		t.Errorf("denied, the run says %v", out)
	}
}

// With no answer the approval times out after approvals.timeout as the
// terminal's does: the command is denied, and a late answer is refused.
func TestRunApprovalTimesOut(t *testing.T) {
	srv := newServer(t, api.Options{Run: guarded(&safety.Policy{Mode: safety.ModeManual, Timeout: 50 * time.Millisecond})})
	r, events, id := pending(t, srv, "rm -rf build")
	got := until(t, events, "run.completed")
	if res := got[0]; res.name != "approval.resolved" || res.data["answer"] != "deny" || res.data["reason"] != "timed_out" {
		t.Errorf("after the timeout: %s %v", res.name, res.data)
	}
	if out, _ := got[len(got)-1].data["output"].(string); !strings.Contains(out, "did not answer") {
		t.Errorf("the run says %v", out)
	}
	if resp := answer(t, srv, r.ID, `{"approval_id":"`+id+`","answer":"once"}`); resp.StatusCode != http.StatusConflict {
		t.Errorf("a late answer: status %d", resp.StatusCode)
	}
}

// Stop while a run waits for approval denies the command and ends the
// run cancelled.
func TestRunStopWhileWaitingForApproval(t *testing.T) {
	srv := newServer(t, api.Options{Run: guarded(&safety.Policy{Mode: safety.ModeManual})})
	r, events, _ := pending(t, srv, "rm -rf build")
	v := decode[runJSON](t, call(t, context.Background(), srv, "", "POST", "/v1/runs/"+r.ID+"/stop", ""), http.StatusOK)
	if v.Status != "cancelled" || !strings.Contains(v.Output, "cancelled") || len(v.PendingApprovals) != 0 {
		t.Errorf("stopped = %+v", v)
	}
	got := until(t, events, "run.cancelled")
	if res := got[0]; res.name != "approval.resolved" || res.data["answer"] != "deny" || res.data["reason"] != "cancelled" {
		t.Errorf("after stop: %s %v", res.name, res.data)
	}
}

// A hardline command is refused without asking, in a run as anywhere.
func TestRunHardlineNeverAsks(t *testing.T) {
	srv := newServer(t, api.Options{Run: guarded(&safety.Policy{Mode: safety.ModeManual})})
	for _, cmd := range []string{"rm -rf /", "mkfs.ext4 /dev/sda1", ":(){ :|:& };:"} {
		r := startRun(t, srv, `{"input":"`+cmd+`"}`)
		got := until(t, watch(t, context.Background(), srv, r.ID), "run.completed")
		if n := names(got); n != "run.started run.completed" {
			t.Errorf("%s: events %s", cmd, n)
		}
		if out, _ := got[len(got)-1].data["output"].(string); !strings.Contains(out, "never runs this command") {
			t.Errorf("%s: the run says %v", cmd, out)
		}
	}
}

// approval.required carries the command exactly as it would run, and an
// escaped form in which control and invisible characters cannot redraw
// or reverse what a client prints.
func TestRunApprovalShowsCommandExactly(t *testing.T) {
	srv := newServer(t, api.Options{Run: guarded(&safety.Policy{Mode: safety.ModeManual})})
	for _, cmd := range []string{"rm -rf build\r\x1b[2Kls -la", "ls; rm -rf build \u202e"} {
		body, _ := json.Marshal(map[string]string{"input": cmd})
		r := startRun(t, srv, string(body))
		events := watch(t, context.Background(), srv, r.ID)
		got := until(t, events, "approval.required")
		req := got[len(got)-1].data
		esc, _ := req["escaped"].(string)
		if req["command"] != cmd || esc != safety.Escape(cmd) || strings.ContainsAny(esc, "\r\x1b\u202e") {
			t.Errorf("%q: approval.required = %q", cmd, req)
		}
		call(t, context.Background(), srv, "", "POST", "/v1/runs/"+r.ID+"/stop", "")
	}
}
