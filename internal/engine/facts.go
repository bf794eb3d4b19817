package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/memory/facts"
)

// recallLimit is how many facts at most go before a session's first
// message.
const recallLimit = 5

// LongTerm is long-term memory (seed 003 §5.2): lasting facts recalled
// into the first message of a session and extracted from a session once it
// has gone idle or ended.
type LongTerm struct {
	Store *facts.Store
	// Model extracts the facts (auxiliary.memory, else the main model);
	// without a provider, facts are recalled but not extracted.
	Model Model
	// ExtractAfter is how long a session stays idle before its facts are
	// extracted (memory.extract_after); zero extracts only when a session
	// ends.
	ExtractAfter time.Duration
	// MaxPerDay caps the extractions of a day, across every process
	// sharing the store (memory.long_term.max_extractions_per_day); 0 is
	// no cap.
	MaxPerDay int
	// ExpireAfter drops, after each extraction, the facts neither stored
	// nor recalled for this long (memory.long_term.expire_after); 0 keeps
	// them.
	ExpireAfter time.Duration
}

// extractions tracks the idle timers and the running extractions.
type extractions struct {
	mu     sync.Mutex
	timers map[string]clock.Timer
	// closed is set by Engine.Close: no extraction starts after it.
	closed bool
	active sync.WaitGroup
}

// recall prepends the facts relevant to text to the first message of a
// session, as a marked block. It goes into the user message, not the
// system prompt, so the prompt's cached prefix holds.
// A user's turns recall the user's own facts; an agent's, none of the
// shared ones (see factSpace).
func (e *Engine) recall(ctx context.Context, ag *Agent, u *User, history []llm.Message, text string) string {
	lt := e.opt.LongTerm
	if lt == nil || len(history) > 0 || ag != nil && u == nil {
		return text
	}
	store := lt.Store
	if u != nil {
		store = store.For(u.ID)
	}
	found, err := facts.Recall(ctx, store, text, recallLimit)
	if err != nil {
		e.opt.Logger.Warn("long-term memory not recalled", "error", err)
		return text
	}
	if block := facts.Block(found); block != "" {
		return block + "\n\n" + text
	}
	return text
}

// touch stops the session's idle timer while one of its turns runs.
func (x *extractions) touch(sessionID string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if t, ok := x.timers[sessionID]; ok {
		t.Stop()
		delete(x.timers, sessionID)
	}
}

// close stops every idle timer and lets no extraction start.
func (x *extractions) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	for id, t := range x.timers {
		t.Stop()
		delete(x.timers, id)
	}
}

// idle starts the session's idle clock after one of its turns: when no
// turn comes for LongTerm.ExtractAfter, its facts are extracted. The
// store records when, so the extraction survives this process
// (ResumeExtractions).
func (e *Engine) idle(sessionID string) {
	lt := e.opt.LongTerm
	if lt == nil || lt.ExtractAfter <= 0 || lt.Model.Provider == nil {
		return
	}
	if err := lt.Store.Due(e.base, sessionID, e.opt.Clock.Now().Add(lt.ExtractAfter)); err != nil {
		e.opt.Logger.Warn("long-term memory: recording the extraction due", slog.String("session_id", sessionID), slog.String("error", err.Error()))
	}
	e.arm(sessionID, lt.ExtractAfter)
}

// arm (re)starts the session's idle timer to extract its facts after d.
func (e *Engine) arm(sessionID string, d time.Duration) {
	x := &e.facts
	x.mu.Lock()
	defer x.mu.Unlock()
	if t, ok := x.timers[sessionID]; ok {
		t.Stop()
	}
	if x.closed {
		return
	}
	if x.timers == nil {
		x.timers = map[string]clock.Timer{}
	}
	x.timers[sessionID] = e.opt.Clock.AfterFunc(max(d, 0), func() {
		x.mu.Lock()
		delete(x.timers, sessionID)
		x.mu.Unlock()
		e.extractLater(sessionID)
	})
}

// maxResumed bounds the due extractions one ResumeExtractions takes up;
// the rest wait for the next start, or their sessions' next turn.
const maxResumed = 1000

// ResumeExtractions takes up the extractions that were due in processes
// that stopped before making them (their idle timers went with them):
// each runs when it is due, at once for the overdue. hermes serve calls
// it as it starts. It returns how many it took up.
func (e *Engine) ResumeExtractions(ctx context.Context) (int, error) {
	lt := e.opt.LongTerm
	if lt == nil || lt.Model.Provider == nil {
		return 0, nil
	}
	pending, err := lt.Store.Pending(ctx, maxResumed)
	if err != nil {
		return 0, err
	}
	now := e.opt.Clock.Now()
	for _, p := range pending {
		e.arm(p.Session, p.Due.Sub(now))
	}
	return len(pending), nil
}

// extractLater extracts the session's facts in the background; without
// a model to ask (none configured) there is nothing to extract with.
func (e *Engine) extractLater(sessionID string) {
	if lt := e.opt.LongTerm; lt == nil || lt.Model.Provider == nil {
		return
	}
	x := &e.facts
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return
	}
	x.active.Add(1)
	x.mu.Unlock()
	go func() {
		defer e.facts.active.Done()
		e.extract(e.base, sessionID)
	}()
}

// extract asks the model for the lasting facts of a session and stores
// them, logging what it could not do.
func (e *Engine) extract(ctx context.Context, sessionID string) {
	found, added, err := e.ExtractFacts(ctx, sessionID)
	switch {
	case errors.Is(err, facts.ErrExtracted), errors.Is(err, ErrNothingToExtract):
		if err := e.opt.LongTerm.Store.Settle(ctx, sessionID); err != nil {
			e.opt.Logger.Warn("long-term memory: settling an extraction", slog.String("session_id", sessionID), slog.String("error", err.Error()))
		}
	case errors.Is(err, facts.ErrBudget):
		e.opt.Logger.Info("long-term memory not extracted: the day's extractions are used up (memory.long_term.max_extractions_per_day)",
			slog.String("session_id", sessionID))
	case err != nil:
		e.opt.Logger.Warn("long-term memory not extracted", slog.String("session_id", sessionID), slog.String("error", err.Error()))
	default:
		e.opt.Logger.Info("long-term memory extracted", slog.String("session_id", sessionID), slog.Int("facts", found), slog.Int("added", added))
	}
}

// ErrNothingToExtract is ExtractFacts's error for a session with no
// exchange yet, or one whose facts belong to no one (see factSpace).
var ErrNothingToExtract = errors.New("the session has nothing to extract")

// ExtractFacts asks the model for the lasting facts of a session now and
// stores them, returning how many it found and how many were new. The
// store grants a session's messages to one extraction, whichever process
// asks, and none beyond the day's cap: the error then wraps
// facts.ErrExtracted or facts.ErrBudget.
func (e *Engine) ExtractFacts(ctx context.Context, sessionID string) (found, added int, err error) {
	lt := e.opt.LongTerm
	if lt == nil || lt.Model.Provider == nil {
		return 0, 0, errors.New("long-term memory is off, or has no model to extract with")
	}
	owner, ok := e.factSpace(ctx, sessionID)
	if !ok {
		return 0, 0, ErrNothingToExtract
	}
	msgs, err := e.history(ctx, sessionID)
	if err != nil {
		return 0, 0, err
	}
	if len(msgs) < 2 {
		return 0, 0, ErrNothingToExtract
	}
	claim, err := lt.Store.ClaimExtraction(ctx, sessionID, len(msgs), lt.MaxPerDay)
	if err != nil {
		return 0, 0, err
	}
	fs, err := facts.Extract(ctx, lt.Model.Provider, lt.Model.Name, sessionID, msgs)
	if err != nil {
		if rerr := lt.Store.ReleaseExtraction(context.WithoutCancel(ctx), claim); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return 0, 0, err
	}
	added, err = lt.Store.For(owner).Add(ctx, fs)
	if err == nil && lt.ExpireAfter > 0 {
		if n, xerr := lt.Store.Expire(ctx, e.opt.Clock.Now().Add(-lt.ExpireAfter)); xerr != nil {
			e.opt.Logger.Warn("long-term memory: expiring unused facts", slog.String("error", xerr.Error()))
		} else if n > 0 {
			e.opt.Logger.Info("long-term memory: unused facts expired", slog.Int("facts", n), slog.Duration("unused_for", lt.ExpireAfter))
		}
	}
	return len(fs), added, err
}
