package api

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
)

// The statuses of a run.
const (
	runRunning   = "running"
	runCompleted = "completed"
	runFailed    = "failed"
	runCancelled = "cancelled"
)

// run is one run: the state GET shows, the log of its events that
// watchers follow, and the approvals it waits for. It is the Sink of its
// turn.
type run struct {
	id string
	// user is the user who started it ("" for the owner): only they
	// (and the owner) see it.
	user    string
	created time.Time
	cancel  context.CancelFunc
	// done is closed when the turn has ended and the terminal event is
	// in the log.
	done chan struct{}

	mu        sync.Mutex
	sessionID string
	status    string
	stopping  bool
	output    string
	// callStart is the length of output when the current model call
	// began: a retried call voids what it streamed after it.
	callStart int
	usage     llm.Usage
	stopped   agent.Stop
	errMsg    string
	finished  time.Time
	log       eventLog
	approvals []*approval
}

func newRun(id, sessionID string, now time.Time, cancel context.CancelFunc) *run {
	r := &run{id: id, created: now, cancel: cancel, done: make(chan struct{}), sessionID: sessionID, status: runRunning}
	r.log.changed = make(chan struct{})
	return r
}

// start is the turn's Started: the session is known.
func (r *run) start(sessionID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sessionID = sessionID
	r.emit("run.started", map[string]any{"run_id": r.id, "session_id": sessionID})
}

// Event maps one of the turn's events onto the run's log.
func (r *run) Event(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sweep()
	switch e.Kind {
	case agent.EventText:
		r.output += e.Text
		r.emit("text.delta", map[string]any{"text": e.Text})
	case agent.EventReasoning:
		r.emit("reasoning.delta", map[string]any{"text": e.Text})
	case agent.EventToolStarted, agent.EventToolFinished:
		if e.Tool != nil {
			r.emitTool(e.Kind, e.Tool)
		}
	case agent.EventUsage:
		addUsage(&r.usage, e.Usage)
		r.callStart = len(r.output)
		r.emit("usage", toUsage(e.Usage))
	case agent.EventRetry:
		r.output = r.output[:r.callStart]
		msg := "the model call failed and is tried again; the text since the last usage event is void"
		r.emit("retry", map[string]any{"message": msg})
	case agent.EventCompressed:
		if e.Err == nil && e.Text != "" {
			r.emit("compressed", map[string]any{"message": e.Text})
		}
	}
}

// maxToolContent bounds a tool's output in a tool.finished event; the
// model still gets all of it.
const maxToolContent = 8 << 10

// emitTool logs a tool call's start or finish.
func (r *run) emitTool(kind agent.EventKind, t *agent.ToolEvent) {
	data := map[string]any{"index": t.Index, "call_id": t.Call.ID, "name": t.Call.Name}
	if kind == agent.EventToolStarted {
		data["arguments"] = t.Call.Arguments
		r.emit("tool.started", data)
		return
	}
	content := t.Content
	if len(content) > maxToolContent {
		content = truncate(content, maxToolContent)
	}
	data["status"], data["content"], data["duration_ms"] = t.Result.Status, content, t.Duration.Milliseconds()
	if t.Result.ErrorCode != "" {
		data["error_code"] = t.Result.ErrorCode
	}
	r.emit("tool.finished", data)
}

// end records how the turn ended and logs the terminal event. A turn
// whose context ended was stopped: it ends cancelled, whatever it
// returned.
func (r *run) end(res *Result, err error, cancelled bool, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer close(r.done)
	r.sweep()
	r.finished = now
	if res != nil {
		if res.SessionID != "" {
			r.sessionID = res.SessionID
		}
		if res.Result != nil {
			r.output, r.usage, r.stopped = res.Final, res.Usage, res.Stopped
			if err == nil && res.Err != nil && res.Stopped != agent.StopInterrupted {
				err = res.Err
			}
		}
	}
	switch {
	case cancelled || (res != nil && res.Result != nil && res.Stopped == agent.StopInterrupted):
		r.status = runCancelled
		r.emit("run.cancelled", map[string]any{"run_id": r.id, "output": r.output})
	case err != nil:
		r.status, r.errMsg = runFailed, err.Error()
		var ae *Error
		if errors.As(err, &ae) {
			r.errMsg = ae.Message
		}
		r.emit("run.failed", map[string]any{"run_id": r.id, "error": r.errMsg, "output": r.output})
	default:
		r.status = runCompleted
		r.emit("run.completed", map[string]any{"run_id": r.id, "output": r.output, "stopped_reason": r.stopped, "usage": toUsage(r.usage)})
	}
}

// stop cancels the turn, or reports false when it has ended.
func (r *run) stop() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status != runRunning {
		return false
	}
	r.stopping = true
	r.cancel()
	return true
}

// finishedAt is when the turn ended, and false while it runs.
func (r *run) finishedAt() (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished, r.status != runRunning
}

// emit appends an event to the log; r.mu is held.
func (r *run) emit(name string, data any) {
	b, _ := json.Marshal(data)
	r.log.append(name, b)
}

// runView is a run as GET /v1/runs/{id} shows it.
type runView struct {
	ID               string         `json:"id"`
	Object           string         `json:"object"`
	Status           string         `json:"status"`
	SessionID        *string        `json:"session_id"`
	CreatedAt        int64          `json:"created_at"`
	FinishedAt       *int64         `json:"finished_at"`
	Stopping         bool           `json:"stopping,omitempty"`
	Output           string         `json:"output"`
	StoppedReason    agent.Stop     `json:"stopped_reason,omitempty"`
	Usage            *usageJSON     `json:"usage"`
	Error            *string        `json:"error"`
	PendingApprovals []approvalView `json:"pending_approvals"`
}

// view returns the run as the API shows it.
func (r *run) view() runView {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sweep()
	v := runView{ID: r.id, Object: "run", Status: r.status, CreatedAt: r.created.Unix(), Stopping: r.stopping && r.status == runRunning,
		Output: r.output, StoppedReason: r.stopped, Usage: toUsage(r.usage), PendingApprovals: []approvalView{}}
	// The pointers are to copies: the view is read after r.mu is let go.
	if sid := r.sessionID; sid != "" {
		v.SessionID = &sid
	}
	if r.status != runRunning {
		at := r.finished.Unix()
		v.FinishedAt = &at
	}
	if msg := r.errMsg; msg != "" {
		v.Error = &msg
	}
	for _, a := range r.approvals {
		v.PendingApprovals = append(v.PendingApprovals, a.view())
	}
	return v
}

// sortByFinish sorts runs by when they finished, the oldest first.
func sortByFinish(rs []*run) {
	slices.SortFunc(rs, func(a, b *run) int {
		at, _ := a.finishedAt()
		bt, _ := b.finishedAt()
		return at.Compare(bt)
	})
}

func addUsage(a *llm.Usage, b llm.Usage) {
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.TotalTokens += b.TotalTokens
}
