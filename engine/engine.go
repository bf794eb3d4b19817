// Package engine is the one entry for a turn. Every front-end — the
// terminal, chat platforms, the HTTP API, editors, scheduled jobs — asks
// the Engine to run a turn; the Engine finds or creates the session, makes
// sure only one turn per session runs at a time, builds the session's
// system prompt once, and runs the agent loop with a recorder that stores
// every message as it is produced.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
)

// Toolbox is the set of tools offered to the model: their specs, name
// repair, and the dispatcher that runs them.
type Toolbox interface {
	Specs() []llm.ToolSpec
	agent.Resolver
	agent.Dispatcher
}

// Options wire an Engine. Store, Provider and Tools are required.
type Options struct {
	Store    session.Store
	Provider llm.Provider
	// Model is the model name sent on each call.
	Model     string
	Tools     Toolbox
	MaxTurns  int
	MaxTokens int
	// SystemPrompt builds a session's system prompt; it is called once per
	// session per process.
	SystemPrompt func(s *session.Session) string
	// Resumed, when set, is told the history of a session the first time
	// this process runs a turn in it, so tools can restore their state
	// (the todo list).
	Resumed func(sessionID string, history []session.Message)
	// Compressor, when set, keeps conversations inside the context
	// window: before a model call past its threshold, or after a context
	// overflow, the conversation is compressed into a child session.
	Compressor *compress.Compressor
	// Window is the model's context window as hermes knows it; a context
	// overflow steps it down and the Compressor follows.
	Window *llm.Window
	// Price, when set, estimates a model call's cost in USD for the
	// session's totals; 0 when the model's price is not known.
	Price func(model string, u llm.Usage) float64
	// Review, when set, runs background reviews after turns (see Review).
	Review *Review
	// Recall, when set, is asked for long-term memory relevant to the
	// first message of a new session; what it returns (a marked block,
	// or "") goes before that message. It goes into the user message,
	// not the system prompt, so the prompt's cached prefix holds.
	Recall func(ctx context.Context, text string) string
	Now    func() time.Time
	Logger *slog.Logger
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
	// rev tracks background reviews; base is their context, ended by
	// Close.
	rev reviews
	// noGain holds, per session, the size at which compressing last
	// saved too little.
	noGain map[string]int
	base   context.Context
	stop   context.CancelFunc
}

// turnLock is one session's turn lock and how many turns hold or wait
// for it.
type turnLock struct {
	ch   chan struct{}
	refs int
}

// maxPrompts bounds the cached system prompts of a long-running process.
// When it is reached the cache starts over; a session whose prompt was
// dropped gets it rebuilt, which costs one prompt-cache miss.
const maxPrompts = 4096

// New returns an Engine.
func New(opt Options) *Engine {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	base, stop := context.WithCancel(context.Background())
	return &Engine{opt: opt, locks: map[string]*turnLock{}, prompts: map[string]string{}, base: base, stop: stop}
}

// Close cancels the background reviews still running and waits for them
// to end. Turns must have ended before.
func (e *Engine) Close() {
	e.stop()
	e.rev.active.Wait()
}

// Input is one turn's request.
type Input struct {
	// Text is the user's message; empty continues a turn that was cut
	// off before the model answered.
	Text string
	// Source names the front-end ("cli", "telegram", "cron") for a new
	// session.
	Source string
	// Workdir is where a new session works; tools start there.
	Workdir string
	// Approver returns who decides on dangerous commands in the session
	// (approvals granted for a session are kept per session id); nil
	// leaves the tools' own fallback.
	Approver func(sessionID string) tool.Approver
}

// TurnResult is a finished turn.
type TurnResult struct {
	SessionID string
	*agent.Result
}

// Turn runs one turn in the session sessionID, or in a new session when
// sessionID is empty. A second turn in the same session waits for the
// first to end, or for ctx. The error is for failures before the loop
// starts (unknown session, store unavailable); a failed model call is
// reported in the result's Stopped and Err.
func (e *Engine) Turn(ctx context.Context, sessionID string, in Input, sink agent.Sink) (*TurnResult, error) {
	s, err := e.session(ctx, sessionID, in)
	if err != nil {
		return nil, err
	}
	unlock, err := e.lock(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	defer unlock()

	stored, err := e.opt.Store.Messages(ctx, s.ID)
	if err != nil {
		return nil, fmt.Errorf("loading session %s: %w", s.ID, err)
	}
	history := make([]llm.Message, len(stored))
	for i, m := range stored {
		history[i] = m.Message
	}
	system := e.systemPrompt(ctx, s, stored)
	var input llm.Message
	if in.Text != "" {
		input = llm.UserMessage(e.recall(ctx, history, in.Text))
		if s.Title == "" {
			if err := e.opt.Store.SetTitle(ctx, s.ID, title(in.Text)); err != nil {
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
	rec := &recorder{store: e.opt.Store, sessionID: s.ID, now: e.opt.Now, price: e.opt.Price}
	cfg := agent.Config{
		Provider:   e.opt.Provider,
		Model:      e.opt.Model,
		Tools:      e.opt.Tools.Specs(),
		Dispatcher: e.opt.Tools,
		Resolver:   e.opt.Tools,
		Recorder:   rec,
		System:     system,
		MaxTurns:   e.opt.MaxTurns,
		MaxTokens:  e.opt.MaxTokens,
		SessionID:  s.ID,
		Source:     s.Source,
		Workdir:    workdir,
		Logger:     e.opt.Logger,
	}
	if in.Approver != nil {
		cfg.Approver = in.Approver(s.ID)
	}
	if e.opt.Compressor != nil {
		cfg.Compactor = &compactor{e: e, sess: s, rec: rec}
	}
	start := e.opt.Now()
	res := agent.Run(ctx, cfg, history, input, sink)
	e.opt.Logger.Info("turn finished", slog.String("session_id", s.ID), slog.String("stopped", string(res.Stopped)),
		slog.Int("iterations", res.Iterations), slog.Int64("duration_ms", e.opt.Now().Sub(start).Milliseconds()),
		slog.Int("tokens", res.Usage.InputTokens+res.Usage.OutputTokens))
	// A compressed conversation goes on in a child session; the caller
	// continues there.
	final := rec.sessionID
	e.afterTurn(final, e.cachedPrompt(final, system), res)
	return &TurnResult{SessionID: final, Result: res}, nil
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

// recall prepends long-term memory to the first message of a session.
func (e *Engine) recall(ctx context.Context, history []llm.Message, text string) string {
	if e.opt.Recall == nil || len(history) > 0 {
		return text
	}
	if block := e.opt.Recall(ctx, text); block != "" {
		return block + "\n\n" + text
	}
	return text
}

// session returns the session to run in, creating it when id is empty.
func (e *Engine) session(ctx context.Context, id string, in Input) (*session.Session, error) {
	if id != "" {
		s, err := e.opt.Store.Get(ctx, id)
		if errors.Is(err, session.ErrNotFound) {
			return nil, fmt.Errorf("session %q does not exist; `hermes sessions list` shows the sessions there are", id)
		}
		return s, err
	}
	s := &session.Session{Source: in.Source, Model: e.opt.Model, Cwd: in.Workdir}
	if s.Source == "" {
		s.Source = "cli"
	}
	if err := e.opt.Store.Create(ctx, s); err != nil {
		return nil, fmt.Errorf("creating a session: %w", err)
	}
	return s, nil
}

// lock waits until no other turn runs in the session.
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

// systemPrompt returns the session's prompt: the one recorded for it when
// it started (by this process or another), else a new one, which is
// recorded. A session keeps its prompt for life, so the provider's prefix
// cache keeps hitting and memory written during the session shows only in
// the next one.
func (e *Engine) systemPrompt(ctx context.Context, s *session.Session, stored []session.Message) string {
	e.mu.Lock()
	p, ok := e.prompts[s.ID]
	e.mu.Unlock()
	if ok {
		return p
	}
	p, err := e.opt.Store.SystemPrompt(ctx, s.ID)
	if err != nil {
		e.opt.Logger.Warn("reading the session's system prompt", slog.String("session_id", s.ID), slog.String("error", err.Error()))
	}
	if p == "" && e.opt.SystemPrompt != nil {
		p = e.opt.SystemPrompt(s)
		if err := e.opt.Store.SetSystemPrompt(ctx, s.ID, p); err != nil {
			e.opt.Logger.Warn("recording the session's system prompt", slog.String("session_id", s.ID), slog.String("error", err.Error()))
		}
	}
	if e.opt.Resumed != nil && len(stored) > 0 {
		e.opt.Resumed(s.ID, stored)
	}
	e.mu.Lock()
	if len(e.prompts) >= maxPrompts {
		clear(e.prompts)
	}
	e.prompts[s.ID] = p
	e.mu.Unlock()
	return p
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
