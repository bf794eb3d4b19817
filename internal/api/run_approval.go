package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/safety"
)

// approval is a dangerous command of a run waiting for the client's
// answer. Its id is random and belongs to its run: it answers nothing in
// another run, and nothing once answered, timed out or cancelled.
type approval struct {
	id  string
	req safety.Request
	// ctx is the policy's wait: when it ends, the approval is no longer
	// pending, whether or not Prompt has noticed yet.
	ctx    context.Context
	answer chan reply
}

// reply is an approval's answer and who gave it, for the audit log:
// the user whose key answered, or the owner.
type reply struct {
	ans safety.Answer
	by  string
}

// approvalView is a pending approval as the API shows it. Command is the
// command exactly as it would run; Escaped writes its invisible and
// control characters as escapes, for a client that prints it.
type approvalView struct {
	ApprovalID  string `json:"approval_id"`
	Command     string `json:"command"`
	Escaped     string `json:"escaped"`
	Dir         string `json:"dir,omitempty"`
	Rule        string `json:"rule"`
	Description string `json:"description"`
}

func (a *approval) view() approvalView {
	return approvalView{ApprovalID: a.id, Command: a.req.Command, Escaped: safety.Escape(a.req.Command), Dir: a.req.Dir,
		Rule: a.req.Verdict.Rule, Description: a.req.Verdict.Description}
}

// runPrompter asks a run's client about the run's dangerous commands: it
// logs approval.required and waits for POST /v1/runs/{id}/approval. It is
// a safety.Prompter; the policy bounds the wait by approvals.timeout and
// denies when it passes or the run is stopped.
type runPrompter struct{ r *run }

// Prompt waits for the answer; when ctx ends first the approval is
// withdrawn, so a late answer is refused instead of taken.
func (p runPrompter) Prompt(ctx context.Context, req safety.Request) (safety.Answer, error) {
	a := &approval{id: "appr_" + randomID(), req: req, ctx: ctx, answer: make(chan reply, 1)}
	r := p.r
	r.mu.Lock()
	r.sweep()
	r.approvals = append(r.approvals, a)
	r.emit("approval.required", a.view())
	r.mu.Unlock()
	select {
	case got := <-a.answer:
		safety.NoteApprover(ctx, got.by)
		return got.ans, nil
	case <-ctx.Done():
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sweep()
	select {
	case got := <-a.answer:
		// Answered as the wait ended; the policy decides whether the
		// answer still counts.
		safety.NoteApprover(ctx, got.by)
		return got.ans, nil
	default:
		return safety.Deny, ctx.Err()
	}
}

// sweep withdraws the approvals whose wait has ended, timed out or
// cancelled, logging each as denied. The policy stops waiting without
// waiting for its Prompter, so every event of the run and every answer
// sweeps first: approval.resolved comes before what the denial led to,
// and a late answer finds nothing pending. r.mu is held.
func (r *run) sweep() {
	r.approvals = slices.DeleteFunc(r.approvals, func(a *approval) bool {
		if a.ctx.Err() == nil {
			return false
		}
		reason := "cancelled"
		if errors.Is(a.ctx.Err(), context.DeadlineExceeded) {
			reason = "timed_out"
		}
		r.emit("approval.resolved", map[string]any{"approval_id": a.id, "answer": safety.Deny.String(), "reason": reason})
		return true
	})
}

// approvalRequest is the body of POST /v1/runs/{id}/approval.
type approvalRequest struct {
	ApprovalID string `json:"approval_id"`
	Answer     string `json:"answer"`
}

// runAnswer is the answer a client names: once, session, always or
// deny, exactly; the looser spellings a person may type (y, yes) are not
// taken from a program.
func runAnswer(name string) (safety.Answer, bool) {
	switch name {
	case "once":
		return safety.Once, true
	case "session":
		return safety.Session, true
	case "always":
		return safety.Always, true
	case "deny":
		return safety.Deny, true
	}
	return 0, false
}

// answerRun answers POST /v1/runs/{id}/approval: the answer goes to the
// pending approval of that id in that run, once.
func (s *Server) answerRun(w http.ResponseWriter, r *http.Request) {
	var req approvalRequest
	if bad := decodeBody(r, &req, "approval"); bad != nil {
		writeError(w, bad.status, "invalid_request_error", bad.param, bad.msg)
		return
	}
	ans, ok := runAnswer(req.Answer)
	if !ok {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "answer", fmt.Sprintf("answer: %q is not accepted; use once, session, always or deny", req.Answer))
		return
	}
	if strings.TrimSpace(req.ApprovalID) == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "approval_id", "approval_id: is missing; send the approval_id of the run's approval.required event (GET /v1/runs/{id} lists the pending ones)")
		return
	}
	run := s.lookupRun(w, r)
	if run == nil {
		return
	}
	if CallerFrom(r.Context()).Viewer && req.Answer != "deny" {
		writeError(w, http.StatusForbidden, "permission_error", "answer", "a viewer approves nothing, not even their own run's commands; answer deny, or ask an admin of your tenant")
		return
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	run.sweep()
	var pending []string
	for _, a := range run.approvals {
		pending = append(pending, a.id)
	}
	i := slices.IndexFunc(run.approvals, func(a *approval) bool { return a.id == req.ApprovalID })
	switch {
	case run.status != runRunning:
		writeError(w, http.StatusConflict, "invalid_request_error", "approval_id", fmt.Sprintf("run %s has %s; it waits for no approval", run.id, run.status))
		return
	case i < 0 && len(pending) == 0:
		writeError(w, http.StatusConflict, "invalid_request_error", "approval_id", fmt.Sprintf("approval_id: run %s waits for no approval now; %q was answered, timed out or belongs to another run", run.id, req.ApprovalID))
		return
	case i < 0:
		writeError(w, http.StatusConflict, "invalid_request_error", "approval_id", fmt.Sprintf("approval_id: %q is not pending in run %s; it waits for %s", req.ApprovalID, run.id, strings.Join(pending, ", ")))
		return
	}
	a := run.approvals[i]
	run.approvals = slices.Delete(run.approvals, i, i+1)
	by := "the owner's API key"
	if c := CallerFrom(r.Context()); !c.Owner() {
		by = "user " + c.User + " (API key)"
	}
	a.answer <- reply{ans: ans, by: by}
	run.emit("approval.resolved", map[string]any{"approval_id": a.id, "answer": ans.String(), "reason": "answered"})
	writeJSON(w, http.StatusOK, map[string]any{"run_id": run.id, "approval_id": a.id, "answer": ans.String()})
}
