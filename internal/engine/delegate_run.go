package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
)

// The statuses of a child's result.
const (
	childCompleted   = "completed"
	childFailed      = "failed"
	childTimedOut    = "timed out"
	childInterrupted = "interrupted"
)

// childResult is what the parent learns of one child.
type childResult struct {
	Task      int    `json:"task_index"`
	Goal      string `json:"goal"`
	Status    string `json:"status"`
	SessionID string `json:"session_id,omitempty"`
	Summary   string `json:"summary"`
	// Reason says why a child did not complete.
	Reason     string `json:"reason,omitempty"`
	Iterations int    `json:"iterations"`
}

// errChildTimeout ends a child that ran past delegation.child_timeout.
type errChildTimeout struct{ after time.Duration }

func (e errChildTimeout) Error() string {
	return fmt.Sprintf("the child ran longer than %s (delegation.child_timeout) and was stopped", e.after)
}

// Call runs the tasks as children, at most MaxConcurrent at once, and
// returns their results in task order. The parent's cancellation reaches
// every child.
func (d *delegateTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a delegateArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "the arguments are not the object described: %v", err)
	}
	tasks, err := d.tasks(a)
	if err != nil {
		return nil, err
	}
	depth := depthOf(ctx)
	if depth >= d.cfg.MaxDepth {
		return nil, tool.Errorf(tool.CodeDenied, "this agent runs %d delegation levels deep and delegation.max_spawn_depth is %d: do the work yourself with the tools you have", depth, d.cfg.MaxDepth)
	}
	inv := tool.InvocationFrom(ctx)
	parentTools := d.offeredBy(inv.Caller)
	results := make([]childResult, len(tasks))
	slots := make(chan struct{}, d.cfg.MaxConcurrent)
	var wg sync.WaitGroup
	for i, t := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
				results[i] = childResult{Task: i, Goal: t.Goal, Status: childInterrupted, Reason: "the parent was interrupted before this child started"}
				return
			}
			results[i] = d.runChild(ctx, i, t, depth+1, inv, parentTools)
		}()
	}
	wg.Wait()
	return map[string]any{"results": results}, nil
}

// runChild runs one task as a child session at depth and reports how it
// ended, with what it had written when it was stopped.
func (d *delegateTool) runChild(ctx context.Context, i int, t task, depth int, inv tool.Invocation, parentTools []tool.Tool) childResult {
	r := childResult{Task: i, Goal: t.Goal}
	mayDelegate := t.Role == roleOrchestrator && depth < d.cfg.MaxDepth
	reg, err := d.childTools(parentTools, mayDelegate)
	if err != nil {
		r.Status, r.Reason = childFailed, err.Error()
		return r
	}
	in := Input{
		Text:     childPrompt(t),
		Source:   childSource,
		Workdir:  inv.Workdir,
		MaxTurns: d.cfg.MaxIterations,
		Approval: safety.Asker{NonInteractive: safety.NonInteractiveDeny},
		box:      d.e.toolbox(reg),
		model:    d.cfg.Model,
		parentID: inv.SessionID,
	}
	if d.cfg.ParentApproves && inv.Approver != nil {
		in.Approver = inv.Approver
	}
	cctx, watch, stop := d.childContext(context.WithValue(ctx, depthKey{}, depth))
	defer stop()
	res, err := d.e.Turn(cctx, "", in, watch)
	if res != nil {
		r.SessionID, r.Iterations = res.SessionID, res.Iterations
		r.Summary = summarize(cmp.Or(res.Final, madeCalls(res.ToolCalls)))
	}
	cause := context.Cause(cctx)
	var timeout errChildTimeout
	var idle errInactive
	switch {
	case errors.As(cause, &timeout):
		r.Status, r.Reason = childTimedOut, cause.Error()
	case errors.As(cause, &idle):
		r.Status, r.Reason = childTimedOut, fmt.Sprintf("no progress for %s (no model output, no tool call): the child was stopped (delegation.child_idle_timeout)", idle.after)
	case ctx.Err() != nil:
		r.Status, r.Reason = childInterrupted, "the parent was interrupted"
	case err != nil:
		r.Status, r.Reason = childFailed, err.Error()
	case res.Stopped == agent.StopDone:
		r.Status = childCompleted
	default:
		r.Status, r.Reason = childFailed, "stopped: "+string(res.Stopped)
		if res.Err != nil {
			r.Reason += ": " + res.Err.Error()
		}
	}
	return r
}

// childContext is ctx ended by the child timeout or by the idle limit,
// whichever comes first; the watchdog in it is the child's sink.
func (d *delegateTool) childContext(ctx context.Context) (context.Context, *watchdog, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := d.e.opt.Clock
	timer := c.AfterFunc(d.cfg.ChildTimeout, func() { cancel(errChildTimeout{d.cfg.ChildTimeout}) })
	wctx, w := newWatchdog(ctx, c, d.cfg.IdleTimeout)
	return wctx, w, func() {
		timer.Stop()
		w.Stop()
		cancel(context.Canceled)
	}
}

// childPrompt is a child's first message: its goal first, which names
// the session, then its context and how a child works.
func childPrompt(t task) string {
	var b strings.Builder
	b.WriteString(t.Goal)
	if t.Context != "" {
		b.WriteString("\n\nContext:\n")
		b.WriteString(t.Context)
	}
	b.WriteString("\n\nYou are a child agent working on this one task for another agent, who reads your final answer. ")
	b.WriteString("Nobody can answer questions: decide for yourself, and end with a summary of what you did and found.")
	return b.String()
}

// madeCalls says what a child that wrote no answer did before it was
// stopped, so the parent knows whether to look into its session.
func madeCalls(calls []agent.CallSummary) string {
	if len(calls) == 0 {
		return "The child wrote no answer and called no tool."
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name + " (" + string(c.Status) + ")"
	}
	return fmt.Sprintf("The child wrote no answer; it called %s. Its session holds what they returned.", strings.Join(names, ", "))
}

// summarize cuts a child's final answer to maxSummary characters.
func summarize(s string) string {
	r := []rune(s)
	if len(r) <= maxSummary {
		return s
	}
	const note = "\n[… cut: the child's session holds the whole answer]"
	return string(r[:maxSummary-len([]rune(note))]) + note
}
