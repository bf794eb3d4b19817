package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// Review configures the background review (seed 000's "second layer"):
// after a turn that finished normally, when enough user turns or tool
// iterations have passed, a forked agent looks back over a copy of the
// conversation and saves what is worth keeping to memory or as a skill.
// The user's session is never written to, and the next turn never waits.
type Review struct {
	// Tools are the names the review may call (the memory and skill
	// tools); any other call is refused. The review is offered the same
	// tool specs as the turn, so its requests share the cached prefix.
	Tools []string
	// MemoryEvery is the number of user turns between memory reviews
	// (memory.nudge_interval); zero turns them off.
	MemoryEvery int
	// SkillEvery is the number of tool iterations, since the last skill
	// was written, that calls for a skill review
	// (skills.creation_nudge_interval); zero turns them off.
	SkillEvery int
	// SkillWriter is the tool whose successful calls count as writing a
	// skill ("skill_manage").
	SkillWriter string
	// MaxIterations bounds the review's model calls; zero means 8.
	MaxIterations int
}

// reviewState counts, per session, what has happened since the last
// review.
type reviewState struct {
	turns, iterations int
	running           bool
}

// reviews tracks the sessions' review state and the running reviews.
type reviews struct {
	mu     sync.Mutex
	byID   map[string]*reviewState
	active sync.WaitGroup
}

// turnDone is what happens after a turn needs to know of it.
type turnDone struct {
	sessionID, system, source string
	model                     Model
	box                       *Toolbox
	reviewed                  func(sessionID string, saved []string)
}

// afterTurn restarts the session's idle clock for fact extraction and
// counts the turn toward a background review, starting one when it is due
// and none runs for the session. Work nobody watches (scheduled jobs) is
// not reviewed.
func (e *Engine) afterTurn(t turnDone, res *agent.Result) {
	if background(t.source) {
		return
	}
	e.idle(t.sessionID)
	r := e.opt.Review
	if r == nil || res.Stopped != agent.StopDone {
		return
	}
	e.rev.mu.Lock()
	if e.rev.byID == nil || len(e.rev.byID) >= maxPrompts {
		e.rev.byID = map[string]*reviewState{}
	}
	st := e.rev.byID[t.sessionID]
	if st == nil {
		st = &reviewState{}
		e.rev.byID[t.sessionID] = st
	}
	st.turns++
	for _, c := range res.ToolCalls {
		if c.Name == r.SkillWriter && c.Status == tool.StatusOK {
			st.iterations = 0
		}
	}
	if len(res.ToolCalls) > 0 {
		st.iterations += res.Iterations
	}
	memoryDue := r.MemoryEvery > 0 && st.turns >= r.MemoryEvery
	skillDue := r.SkillEvery > 0 && st.iterations >= r.SkillEvery
	if st.running || (!memoryDue && !skillDue) {
		e.rev.mu.Unlock()
		return
	}
	st.running = true
	if memoryDue {
		st.turns = 0
	}
	if skillDue {
		st.iterations = 0
	}
	e.rev.active.Add(1)
	e.rev.mu.Unlock()
	go func() {
		defer e.rev.active.Done()
		var saved []string
		if history, err := e.history(e.base, t.sessionID); err != nil {
			e.opt.Logger.Warn("background review skipped", slog.String("session_id", t.sessionID), slog.String("error", err.Error()))
		} else {
			saved = e.review(e.base, t, history, memoryDue, skillDue)
		}
		e.rev.mu.Lock()
		st.running = false
		e.rev.mu.Unlock()
		if t.reviewed != nil && len(saved) > 0 {
			t.reviewed(t.sessionID, saved)
		}
	}()
}

// review runs the forked agent and returns what it saved.
func (e *Engine) review(ctx context.Context, t turnDone, history []llm.Message, memory, skill bool) []string {
	r := e.opt.Review
	limit := r.MaxIterations
	if limit <= 0 {
		limit = 8
	}
	only := &onlyTools{box: t.box, allowed: map[string]bool{}}
	for _, name := range r.Tools {
		only.allowed[name] = true
	}
	cfg := agent.Config{
		Provider: t.model.Provider, Model: t.model.Name,
		Tools: t.box.Specs(), Dispatcher: only, Resolver: t.box,
		System: t.system, MaxTurns: limit, MaxTokens: t.model.MaxTokens,
		SessionID: t.sessionID, Logger: e.opt.Logger,
		// No Recorder: nothing reaches the user's session. No Approver:
		// dangerous commands are denied.
	}
	start := e.opt.Clock.Now()
	res := agent.Run(ctx, cfg, history, llm.UserMessage(reviewPrompt(memory, skill)), nil)
	e.opt.Logger.Info("background review finished", slog.String("session_id", t.sessionID),
		slog.String("stopped", string(res.Stopped)), slog.Int("iterations", res.Iterations),
		slog.Int64("duration_ms", e.opt.Clock.Now().Sub(start).Milliseconds()),
		slog.Int("tokens", res.Usage.InputTokens+res.Usage.OutputTokens))
	return only.saved()
}

// reviewPrompt asks for what is due: memory, skills or both.
func reviewPrompt(memory, skill bool) string {
	p := "[Background review — the user does not see this conversation.] Look back over the conversation above and save what will help in future sessions. "
	if memory {
		p += "Memory: durable facts about the user (preferences, role, how they like answers) go to the memory tool with target user; facts about the environment, conventions and lessons learned go to target memory. Not task progress, not anything already saved, never secrets. "
	}
	if skill {
		p += "Skills: if the work above took several steps or a non-obvious fix that will come up again, save the procedure with skill_manage. Look at the existing skills first and prefer patching one over creating a near-duplicate. "
	}
	return p + `Call only the memory and skill tools. If nothing is worth saving, answer exactly "Nothing to save."`
}

// onlyTools lets the review call its allowed tools and refuses the rest,
// while the model is offered the same specs as in the turn (for prompt
// cache hits). It records what the allowed calls changed.
type onlyTools struct {
	box     *Toolbox
	allowed map[string]bool
	mu      sync.Mutex
	changes []string
}

func (o *onlyTools) Run(ctx context.Context, calls []llm.ToolCall, obs tool.Observer) []tool.Outcome {
	out := make([]tool.Outcome, len(calls))
	var run []llm.ToolCall
	var at []int
	for i, c := range calls {
		_, name, ok := o.box.Resolve(c.Name)
		if !ok || !o.allowed[name] {
			res := tool.Fail(tool.CodeDenied, "%s is not available in a background review; only %s may be called", c.Name, allowedList(o.allowed))
			out[i] = tool.Outcome{Call: c, Name: c.Name, Result: res, Content: res.JSON()}
			continue
		}
		run = append(run, c)
		at = append(at, i)
	}
	if len(run) > 0 {
		for j, oc := range o.box.Run(ctx, run, nil) {
			out[at[j]] = oc
			if oc.Result.Status == tool.StatusOK {
				o.record(oc)
			}
		}
	}
	return out
}

// record notes a change made by a successful call, for the user's line.
func (o *onlyTools) record(oc tool.Outcome) {
	var a struct {
		Action, Name, Target string
		Operations           []json.RawMessage
	}
	json.Unmarshal([]byte(oc.Call.Arguments), &a)
	var line string
	switch {
	case oc.Name == "memory" && a.Target == "user":
		line = "updated the user profile"
	case oc.Name == "memory":
		line = "updated memory"
	case a.Action == "create":
		line = "saved skill " + a.Name
	case a.Action == "delete":
		line = "deleted skill " + a.Name
	case a.Name != "":
		line = "updated skill " + a.Name
	default:
		line = fmt.Sprintf("called %s", oc.Name)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.changes {
		if c == line {
			return
		}
	}
	o.changes = append(o.changes, line)
}

func (o *onlyTools) saved() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.changes...)
}

func allowedList(m map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// history loads a session's conversation as canonical messages.
func (e *Engine) history(ctx context.Context, sessionID string) ([]llm.Message, error) {
	stored, err := e.opt.Store.Messages(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := make([]llm.Message, len(stored))
	for i, m := range stored {
		out[i] = m.Message
	}
	return out, nil
}
