// Package engine is the one entry for a turn. Every front-end — the
// terminal, chat platforms, the HTTP API, editors, scheduled jobs — asks
// the process's one Engine to run a turn; the Engine finds or creates the
// session, makes sure only one turn per session runs at a time, builds the
// session's system prompt once, and runs the agent loop with a recorder
// that stores every message as it is produced. What differs between turns
// (the toolsets offered, the model, who approves commands, where the turn
// came from) is a field of the turn's Input, not a second Engine.
//
// The loops that run beside or after turns live here too: background
// reviews that save memory and skills, long-term fact extraction when a
// session goes idle or ends, and scheduled job runs.
package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/checkpoint"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/compress"
	"github.com/hermes-go/hermes/internal/holder"
	"github.com/hermes-go/hermes/internal/hooks"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/logctx"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// Options wire an Engine. Store, Models and Tools.Registry are required.
type Options struct {
	Store session.Store
	// Models gives the provider of the main model and of the models
	// turns name.
	Models Models
	// Tools is every tool hermes has; each turn is offered a selection.
	Tools Tools
	// Policy decides on dangerous commands; each turn says who can be
	// asked (Input.Approval). Nil leaves the tools' own fallback.
	Policy *safety.Policy
	// Prompt is what system prompts are built from.
	Prompt PromptSources
	// MaxTurns is the iteration budget of a turn that sets none.
	MaxTurns int
	// Compressor, when set, keeps conversations inside the context
	// window: before a model call past its threshold, or after a context
	// overflow, the conversation is compressed into a child session.
	Compressor *compress.Compressor
	// Checkpoints, when set, keeps what files held before each turn
	// changed them (checkpoints.enabled), for /rollback.
	Checkpoints *checkpoint.Store
	// Window is the main model's context window as hermes knows it; a
	// context overflow steps it down and the Compressor follows.
	Window *llm.Window
	// Prices override the built-in price table (config's pricing:), by
	// model name, for the sessions' estimated costs.
	Prices map[string]llm.Price
	// Review, when set, runs background reviews after turns (see Review).
	Review *Review
	// LongTerm, when set, recalls facts at the first message of a session
	// and extracts new ones when a session goes idle or ends.
	LongTerm *LongTerm
	// Jobs is what scheduled job runs need.
	Jobs Jobs
	// Delegation configures the children delegate_task starts.
	Delegation Delegation
	// Agents are the role agents turns can run as, by name.
	Agents map[string]*Agent
	// Users are the users turns can run for, by id (see User). Each
	// must have its Memory.
	Users map[string]*User
	// Admit, when set, is asked before every turn run for a user
	// whether it may start: a *RefusedError says why not (over budget).
	Admit func(ctx context.Context, user string) error
	// Teams is what team runs need: the queue and the configured teams.
	Teams Teams
	// Clock times turns, idle sessions and job runs; nil is the wall
	// clock.
	Clock clock.Clock
	// Holder names this process in the session leases that keep one
	// writer per session across processes ("host/pid" when empty); it is
	// what another process finding a session busy is told.
	Holder string
	// LeaseWait is how long a turn waits for another process's turn in
	// its session before it fails with a *BusyError; zero means
	// DefaultLeaseWait, a negative value not to wait.
	LeaseWait time.Duration
	// Logger gets the engine's lines, with session_id, duration_ms and
	// tokens fields.
	Logger *slog.Logger
	// Hooks, when set, are the operator's commands at the events of
	// sessions, turns and tool calls (config.yaml's hooks:).
	Hooks *hooks.Runner
	// Observer, when set, watches every turn for metrics and traces.
	Observer Observer
}

// Engine runs turns. It is safe for concurrent use.
type Engine struct {
	opt Options
	mu  sync.Mutex
	// locks serializes turns per session; an entry lives while a turn
	// runs or waits, so the map does not grow with every session ever
	// seen. prompts caches each session's system prompt so it stays
	// byte-identical across its turns; it is bounded by maxPrompts.
	locks   map[string]*turnLock
	prompts map[string]string
	// boxes caches the toolboxes of the selections turns asked for.
	boxes map[string]*Toolbox
	// wires keeps each session's wire encoding from one turn to the
	// next (llm.WireCache), so a turn's first call does not encode the
	// whole history and the tools again; bounded by maxWires.
	wires map[string]*llm.WireCache
	// histories keeps the stored messages of the same sessions, so a
	// turn reads only what was added since (see storedHistory).
	histories map[string]*history
	// toolWire is the tools' encoding the sessions' wire caches share, so
	// a new session does not encode the same schemas again.
	toolWire llm.ToolEncodings
	// rev tracks background reviews; facts tracks extractions.
	rev   reviews
	facts extractions
	// noGain holds, per session, the size at which compressing last
	// saved too little.
	noGain map[string]int
	// runs tracks the job runs StartJobNow started.
	runs sync.WaitGroup
	// base is the context of background work, ended by Close.
	base context.Context
	stop context.CancelFunc
	// holder names this process in session leases; gone reports whether
	// another holder's process has ended (holder.Gone).
	holder string
	gone   func(holder string) bool
	// act is when turns start, for IdleSince.
	act activity
}

// turnLock is one session's turn lock and how many turns hold or wait
// for it.
type turnLock struct {
	ch   chan struct{}
	refs int
}

// maxPrompts bounds the per-session caches of a long-running process.
// When one is full it starts over; a session whose prompt was dropped gets
// it read back from the store.
const maxPrompts = 4096

// maxWires bounds the sessions whose wire encoding is kept between turns:
// each holds about the size of its history. When full it starts over.
const maxWires = 16

// New returns an Engine.
func New(opt Options) *Engine {
	opt.Clock = clock.OrReal(opt.Clock)
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.LeaseWait == 0 {
		opt.LeaseWait = DefaultLeaseWait
	}
	name := opt.Holder
	if name == "" {
		name = holder.This()
	}
	base, stop := context.WithCancel(context.Background())
	return &Engine{opt: opt, locks: map[string]*turnLock{}, prompts: map[string]string{},
		boxes: map[string]*Toolbox{}, base: base, stop: stop,
		holder: name, gone: holder.Gone, act: activity{last: opt.Clock.Now()}}
}

// Close stops the idle timers, cancels the background reviews,
// extractions and job runs still running and waits for them to end.
// Turns must have ended before; Drain first gives background work a
// chance to finish.
func (e *Engine) Close() {
	e.facts.close()
	e.stop()
	e.rev.active.Wait()
	e.facts.active.Wait()
	e.runs.Wait()
}

// Drain waits until the background reviews, fact extractions and job
// runs going now have ended, or ctx has; a front that is about to exit
// gives them a moment to finish.
func (e *Engine) Drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		e.rev.active.Wait()
		e.facts.active.Wait()
		e.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Input is one turn's request: the message and everything about the turn
// that differs from one front or job to another.
type Input struct {
	// Text is the user's message; empty continues a turn that was cut
	// off before the model answered.
	Text string
	// Source names the front-end ("cli", "telegram", "cron") for a new
	// session.
	Source string
	// Workdir is where a new session works; tools start there.
	Workdir string
	// Toolsets, when set, replaces the engine's default selection of
	// toolsets for this turn (a job's own toolsets); disabled toolsets
	// stay off.
	Toolsets []string
	// Tools, when set, are offered in this turn besides the selection:
	// the MCP servers an editor connected for its session, which no other
	// session may see. The turn's dispatcher runs them like every other
	// tool, with its approver, timeouts and redaction. A name already
	// taken by a selected tool makes the turn fail before it starts.
	Tools *tool.Registry
	// Model, when set, is the model this turn calls instead of the main
	// one (a job's own model), on the configured provider.
	Model string
	// Agent, when set, names the role agent (Options.Agents) a new
	// session runs as; a continued session keeps the agent it recorded.
	// The agent's toolsets and model apply where Toolsets and Model are
	// empty.
	Agent string
	// User is the id of the user the turn runs for (config's users:),
	// resolved by the front from a platform identity or an API key, and
	// Tenant that user's tenant; both empty for the local owner. A new
	// session records them.
	User   string
	Tenant string
	// MaxTurns, when positive, replaces the engine's iteration budget.
	MaxTurns int
	// Approval says who can be asked about this turn's dangerous
	// commands (a person at a terminal, nobody in a scheduled job);
	// what was granted is kept per session by the engine's Policy.
	Approval safety.Asker
	// Approver, when set, decides this turn's dangerous commands instead
	// of the Policy: a job run from inside a turn (the cronjob tool's
	// "run") asks whoever that turn asks, so that starting a job never
	// reaches further than the turn that started it.
	Approver tool.Approver
	// Reviewed, when set, hears what a background review started after
	// this turn saved ("saved skill deploy-checklist"); it is called
	// later, from another goroutine, and only when something was saved.
	Reviewed func(sessionID string, saved []string)
	// Waiting, when set, is told once that the turn waits for another
	// process's turn in the session to end, and which process that is.
	Waiting func(holder string)
	// Attach, when set, brings what came with the message besides its
	// text (a chat's photos and files). It is called once the turn's
	// session is known, so files can be kept in the session's folder,
	// and it is told whether the model sees images, so they reach the
	// model in a form it takes; the parts it returns follow Text in the
	// user's message, which they make even when Text is empty.
	Attach func(ctx context.Context, to AttachTo) ([]llm.Part, error)
	// Locked, when set, is called once the turn holds its session, so
	// no other turn of it runs in any process, and before its history is
	// read: what it changes in the session (an API request taken over
	// from a replica that died rewinds that attempt's messages) is what
	// the turn sees. An error it returns ends the turn before anything
	// is stored.
	Locked func(ctx context.Context, sessionID string) error
	// Created, when set, is called with the session a turn without a
	// session id made for itself, before the turn takes it: it returns
	// the session the turn runs in, that one or one its caller bound
	// for the same conversation meanwhile (the first messages of a new
	// chat reaching two replicas at once make one session, and the turns
	// run in it one at a time, in either order, each reading what the
	// other wrote). A session made and not taken is deleted, empty. An
	// error it returns ends the turn.
	Created func(ctx context.Context, sessionID string) (string, error)

	// box, when set, is the turn's tools instead of a selection, model
	// the model it calls, and parentID the session a new one is a child
	// of: a delegated child's.
	box      *Toolbox
	model    *Model
	parentID string
}

// AttachTo is what Input.Attach is told about the turn.
type AttachTo struct {
	// SessionID is the session the message goes to.
	SessionID string
	// Images is set when the turn's model takes images in user
	// messages (llm.SeesImages); otherwise images must go as text.
	Images bool
}

// TurnResult is a finished turn.
type TurnResult struct {
	SessionID string
	*agent.Result
	// Checkpoint is the id of what the turn's file changes can be undone
	// with (checkpoint.Store.Restore); "" when it changed none, or
	// checkpoints are off.
	Checkpoint string
}

// Turn runs one turn in the session sessionID, or in a new session when
// sessionID is empty. A second turn in the same session waits for the
// first to end, or for ctx, also when the first runs in another process
// (up to Options.LeaseWait; then the error is a *BusyError). The error is
// for failures before the loop starts (unknown session, unknown toolset,
// no model, store unavailable, session busy); a failed model call is
// reported in the result's Stopped and Err.
func (e *Engine) Turn(ctx context.Context, sessionID string, in Input, sink agent.Sink) (*TurnResult, error) {
	orig := in
	ag, known, err := e.turnAgent(ctx, sessionID, in)
	if err != nil {
		return nil, err
	}
	if known == nil && sessionID != "" && len(e.opt.Users) > 0 {
		if known, err = e.existing(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	u, err := e.turnUser(ctx, known, &in)
	if err != nil {
		return nil, err
	}
	in = agentInput(in, ag)
	if in.Toolsets, err = e.capToolsets(u, in.Toolsets); err != nil {
		return nil, err
	}
	box := in.box
	if box == nil {
		if box, err = e.agentToolbox(in.Toolsets, persona(ag, u)); err != nil {
			return nil, fmt.Errorf("toolsets: %w", err)
		}
	}
	if in.box == nil {
		if box, err = e.allowOnly(box, u); err != nil {
			return nil, err
		}
	}
	if in.Tools != nil {
		if box, err = e.withTools(box, in.Tools); err != nil {
			return nil, err
		}
	}
	model, err := e.opt.Models.Model(in.Model)
	if in.model != nil {
		model, err = *in.model, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := e.session(ctx, sessionID, known, in, model.Name)
	if err != nil {
		return nil, err
	}
	if sessionID == "" && known == nil && in.Created != nil {
		id, err := in.Created(ctx, s.ID)
		if err != nil || id != s.ID {
			// The turn ends here, or the conversation has a session
			// after all: the turn runs there, as any turn of it does.
			// Either way the new one goes unused.
			if err := e.opt.Store.Delete(context.WithoutCancel(ctx), s.ID); err != nil {
				e.opt.Logger.Warn("an unused new session was not deleted", slog.String("session_id", s.ID), slog.String("error", err.Error()))
			}
		}
		if err != nil {
			return nil, fmt.Errorf("recording the new session: %w", err)
		}
		if id != s.ID {
			orig.Created = nil
			return e.Turn(ctx, id, orig, sink)
		}
	}
	// Every line logged for this turn, here or in the tools and stores
	// it calls, says which turn it was.
	ctx = logctx.With(ctx, slog.String("session_id", s.ID), slog.String("turn_id", newTurnID()),
		slog.String("user", s.User), slog.String("tenant", s.Tenant), slog.String("source", s.Source), slog.String("agent", s.Agent))
	if sessionID == "" && known == nil {
		e.sessionStarted(ctx, s.ID, s.Source)
	}
	defer e.turnStarted(s.Source)()
	unlock, err := e.lock(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	ctx, lease, err := e.lease(ctx, s.ID, in.Waiting)
	if err != nil {
		return nil, err
	}
	defer lease.release()
	if in.Locked != nil {
		if err := in.Locked(ctx, s.ID); err != nil {
			return nil, err
		}
	}
	e.facts.touch(s.ID)

	// A session made for this turn has no messages to load: nobody
	// knows its id before the turn hands it out (Input.Attach), so
	// reading them back would only cost a query per stateless request.
	// One bound for a conversation as it was made (Input.Created) is
	// known at once, and a turn of another process may have run in it
	// before this one took its lease.
	var stored []session.Message
	if sessionID != "" || in.Created != nil {
		if stored, err = e.storedHistory(ctx, s); err != nil {
			return nil, fmt.Errorf("loading session %s: %w", s.ID, err)
		}
	}
	history := make([]llm.Message, len(stored))
	for i, m := range stored {
		history[i] = m.Message
	}
	system := e.systemPrompt(ctx, s, history, box)
	attached, err := e.attach(ctx, in, s.ID, model.Name)
	if err != nil {
		return nil, err
	}
	var input llm.Message
	if in.Text != "" || len(attached) > 0 {
		text := in.Text
		if text != "" {
			text = e.recall(ctx, ag, u, history, text)
			text = e.withHookContext(ctx, s.ID, s.Source, in.Text, text)
		}
		input = userMessage(text, attached)
		if t := title(cmp.Or(in.Text, llm.Message{Content: attached}.Text())); s.Title == "" && t != "" {
			if err := e.opt.Store.SetTitle(ctx, s.ID, t); err != nil {
				e.opt.Logger.Warn("session title not set", slog.String("session_id", s.ID), slog.String("error", err.Error()))
			}
		}
	} else if len(history) == 0 || history[len(history)-1].Role != llm.RoleUser {
		return nil, errors.New("nothing to do: the message is empty and the session has no unanswered message")
	}
	workdir := s.Cwd
	if workdir == "" {
		workdir = in.Workdir
	}
	maxTurns := e.opt.MaxTurns
	if in.MaxTurns > 0 {
		maxTurns = in.MaxTurns
	}
	rec := &recorder{store: e.opt.Store, sessionID: s.ID, now: e.opt.Clock.Now, prices: e.opt.Prices}
	cfg := agent.Config{
		Provider:   model.Provider,
		Model:      model.Name,
		Tools:      box.Specs(),
		Dispatcher: box,
		Resolver:   box,
		Recorder:   rec,
		System:     system,
		MaxTurns:   maxTurns,
		MaxTokens:  model.MaxTokens,
		Reasoning:  model.ReasoningEffort,
		SessionID:  s.ID,
		Source:     s.Source,
		Agent:      s.Agent,
		User:       s.User,
		Tenant:     s.Tenant,
		Workdir:    workdir,
		Logger:     e.opt.Logger,
		Wire:       e.wire(s.ID),
	}
	switch {
	case in.Approver != nil:
		cfg.Approver = in.Approver
	case e.opt.Policy != nil:
		cfg.Approver = e.opt.Policy.For(s.ID, in.Approval)
	}
	if e.opt.Compressor != nil {
		cfg.Compactor = &compactor{e: e, sess: s, rec: rec, model: model.Name, box: box, lease: lease}
	}
	ctx, obs := e.observe(ctx, TurnInfo{SessionID: s.ID, Source: s.Source, Model: model.Name, Agent: s.Agent, User: s.User})
	cfg.Provider = obs.provider(cfg.Provider)
	var cp *checkpoint.Turn
	if e.opt.Checkpoints != nil {
		cp = e.opt.Checkpoints.Begin(s.ID, workdir)
		cfg.BeforeWrite = cp.Before
	}
	start := e.opt.Clock.Now()
	res := agent.Run(ctx, cfg, history, input, obs.sink(sink))
	obs.end(res)
	checkpointID := e.commitCheckpoint(ctx, cp, s.ID)
	if lost := lostCause(ctx); lost != nil {
		res.Err = lost
	}
	e.opt.Logger.LogAttrs(ctx, slog.LevelInfo, "turn finished", slog.String("session_id", s.ID), slog.String("stopped", string(res.Stopped)),
		slog.Int("iterations", res.Iterations), slog.Int64("duration_ms", e.opt.Clock.Now().Sub(start).Milliseconds()),
		slog.Int("tokens", res.Usage.InputTokens+res.Usage.OutputTokens),
		slog.Int("tokens_in", res.Usage.InputTokens), slog.Int("tokens_out", res.Usage.OutputTokens),
		slog.Float64("cost", rec.cost(model.Name, res.Usage)), slog.String("model", model.Name))
	// A compressed conversation goes on in a child session; the caller
	// continues there.
	final := rec.sessionID
	e.turnEnded(ctx, final, s.Source, res)
	e.afterTurn(turnDone{sessionID: final, system: e.cachedPrompt(final, system), source: s.Source,
		model: model, box: box, reviewed: in.Reviewed}, res)
	return &TurnResult{SessionID: final, Result: res, Checkpoint: checkpointID}, nil
}

// commitCheckpoint records the turn's checkpoint, if it changed files,
// and returns its id; failing to is logged: the turn's work stands.
func (e *Engine) commitCheckpoint(ctx context.Context, cp *checkpoint.Turn, sessionID string) string {
	if cp == nil {
		return ""
	}
	id, err := cp.Commit()
	if err != nil {
		e.opt.Logger.LogAttrs(ctx, slog.LevelWarn, "checkpoint not recorded", slog.String("session_id", sessionID), slog.String("error", err.Error()))
	}
	return id
}

// cachedPrompt is the session's recorded prompt, or fallback.
func (e *Engine) cachedPrompt(id, fallback string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.prompts[id]; ok {
		return p
	}
	return fallback
}

// session returns the session to run in: known when it was read already,
// else session id, or a new one when id is empty.
func (e *Engine) session(ctx context.Context, id string, known *session.Session, in Input, model string) (*session.Session, error) {
	if known != nil {
		return known, nil
	}
	if id != "" {
		s, err := e.opt.Store.Get(ctx, id)
		if errors.Is(err, session.ErrNotFound) {
			return nil, errSessionNotFound(id)
		}
		return s, err
	}
	// The title comes with the row: a stateless request or a job makes a
	// session every time, and a write of its own would cost one more
	// transaction before the model is called.
	s := &session.Session{Source: in.Source, Model: model, Cwd: in.Workdir, Title: title(in.Text), ParentID: in.parentID, Agent: in.Agent,
		User: in.User, Tenant: in.Tenant}
	if s.Source == "" {
		s.Source = "cli"
	}

	if err := e.opt.Store.Create(ctx, s); err != nil {
		return nil, fmt.Errorf("creating a session: %w", err)
	}
	return s, nil
}

// lock waits until no other turn runs in the session.
// wire returns the wire cache of session id.
func (e *Engine) wire(id string) *llm.WireCache {
	e.mu.Lock()
	defer e.mu.Unlock()
	if w, ok := e.wires[id]; ok {
		return w
	}
	if e.wires == nil || len(e.wires) >= maxWires {
		e.wires = make(map[string]*llm.WireCache)
	}
	w := &llm.WireCache{Shared: &e.toolWire}
	e.wires[id] = w
	return w
}

func (e *Engine) lock(ctx context.Context, id string) (func(), error) {
	e.mu.Lock()
	l, ok := e.locks[id]
	if !ok {
		l = &turnLock{ch: make(chan struct{}, 1)}
		e.locks[id] = l
	}
	l.refs++
	e.mu.Unlock()
	release := func() {
		e.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(e.locks, id)
		}
		e.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, fmt.Errorf("waiting for the running turn of session %s: %w", id, ctx.Err())
	}
}

// EndSession records why a session stopped being used ("exit",
// "new_session") and, with long-term memory on, extracts its lasting
// facts in the background (Drain waits for that). A resumed session is
// simply ended again later.
func (e *Engine) EndSession(ctx context.Context, id, reason string) error {
	if id == "" {
		return nil
	}
	e.facts.touch(id)
	err := e.opt.Store.End(ctx, id, reason)
	if err != nil {
		err = fmt.Errorf("marking session %s ended: %w", id, err)
	}
	e.extractLater(id)
	e.SessionEnded(ctx, id, reason)
	return err
}

// title is a session title made from its first message: the first line,
// cut to 60 characters.
func title(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	r := []rune(line)
	if len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return line
}
