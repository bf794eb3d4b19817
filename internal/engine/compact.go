package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/compress"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// compactor is the agent's Compactor for one turn. A compressed
// conversation continues as a child session of the one it came from
// (seed 000's lineage): the parent keeps the full history for search and
// export, the child starts with the summary and the protected tail, and
// the rest of the turn is recorded there.
type compactor struct {
	e     *Engine
	sess  *session.Session
	rec   *recorder
	model string
	box   *Toolbox
	// lease is the turn's; the session it continues in joins it.
	lease *leases
}

// Compact compresses when the request passes the compressor's threshold,
// or when forced after a context overflow.
func (c *compactor) Compact(ctx context.Context, req agent.CompactRequest) (agent.Compacted, bool, error) {
	comp := c.e.opt.Compressor
	if req.Overflow != nil && c.e.opt.Window != nil {
		// The provider's refusal says (or implies) a smaller window than
		// the one compression was aiming at.
		comp.SetWindow(c.e.opt.Window.StepDown(req.Overflow.Error()))
	}
	// The provider's count for the last call is the truth; only what was
	// added since is estimated.
	var tally llm.Tally
	tally.Observe(req.Reported, req.ReportedMessages)
	est := tally.Estimate(req.System, req.Messages, req.Tools)
	if !req.Force && (!comp.Due() || !comp.ShouldCompress(est) || !comp.Worthwhile(req.Messages) || c.e.futile(c.sess.ID, est)) {
		return agent.Compacted{}, false, nil
	}
	res, err := comp.Compress(ctx, req.Messages, compress.CompressOptions{Force: req.Force})
	if err != nil {
		c.e.opt.Logger.Warn("compression failed; the conversation goes on unchanged",
			slog.String("session_id", c.sess.ID), slog.String("error", err.Error()))
		return agent.Compacted{}, false, fmt.Errorf("compression failed, the conversation is unchanged: %w", err)
	}
	if !gained(res) {
		// Most of the conversation is the recent tail, which is kept:
		// try again only once it has grown.
		c.e.markFutile(c.sess.ID, est)
		return agent.Compacted{}, false, nil
	}
	child, system, err := c.e.continueIn(ctx, c.sess, res.Messages, c.model, c.box, c.lease)
	if err != nil {
		return agent.Compacted{}, false, err
	}
	c.sess = child
	c.rec.sessionID = child.ID
	note := fmt.Sprintf("compressed the conversation from ~%d to ~%d tokens; it continues in session %s", res.Before, res.After, child.ID)
	if res.Fallback {
		note += " (the summarizer failed, so the summary was built without it)"
	}
	c.e.opt.Logger.Info("conversation compressed", slog.String("session_id", child.ID),
		slog.String("parent_session_id", child.ParentID), slog.Int("tokens", res.After), slog.Int("dropped", res.Dropped))
	return agent.Compacted{System: system, Messages: res.Messages, Note: note}, true, nil
}

// gained reports whether a compression saved enough to be worth a new
// session: a tenth of the conversation at least.
func gained(res compress.Result) bool {
	return res.After < res.Before-res.Before/10
}

// futile reports whether compressing the session was tried at a similar
// size and saved too little; it is tried again once the estimate grew by
// a quarter.
func (e *Engine) futile(sessionID string, est int) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	at, ok := e.noGain[sessionID]
	return ok && est < at+at/4
}

func (e *Engine) markFutile(sessionID string, est int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.noGain == nil || len(e.noGain) >= maxPrompts {
		e.noGain = map[string]int{}
	}
	e.noGain[sessionID] = est
}

// continueIn starts a child of parent holding msgs, ends the parent, and
// returns the child with its own system prompt (rebuilt for the tools of
// box, so memory written since is read again). The child's lease joins
// lease before anything is written to it: a process continuing the newest
// session would otherwise find the child and write to it too.
func (e *Engine) continueIn(ctx context.Context, parent *session.Session, msgs []llm.Message, model string, box *Toolbox, lease *leases) (*session.Session, string, error) {
	child := &session.Session{Source: parent.Source, Model: model, Cwd: parent.Cwd, ParentID: parent.ID, Agent: parent.Agent,
		User: parent.User, Tenant: parent.Tenant}
	if err := e.opt.Store.Create(ctx, child); err != nil {
		return nil, "", fmt.Errorf("starting the compressed session: %w", err)
	}
	if err := lease.add(ctx, child.ID); err != nil {
		return nil, "", fmt.Errorf("starting the compressed session: %w", err)
	}
	if parent.Title != "" {
		if err := e.opt.Store.SetTitle(ctx, child.ID, parent.Title); err == nil {
			child.Title = parent.Title
		}
	}
	now := e.opt.Clock.Now()
	stored := make([]*session.Message, len(msgs))
	for i, m := range msgs {
		stored[i] = &session.Message{SessionID: child.ID, Message: m, CreatedAt: now}
	}
	if err := e.opt.Store.Append(ctx, child.ID, stored...); err != nil {
		return nil, "", fmt.Errorf("writing the compressed conversation: %w", err)
	}
	if err := e.opt.Store.End(ctx, parent.ID, "compressed"); err != nil {
		e.opt.Logger.Warn("parent session not marked ended", slog.String("session_id", parent.ID), slog.String("error", err.Error()))
	}
	return child, e.systemPrompt(ctx, child, nil, box), nil
}

// Compressed is the outcome of an explicit compression (/compress).
type Compressed struct {
	SessionID     string
	Before, After int
	Fallback      bool
}

// ErrNothingToCompress says a forced compression found nothing to drop;
// the error returned wraps it in a *TooShortError saying why.
var ErrNothingToCompress = errors.New("the conversation is too short to compress")

// TooShortError is a forced compression that found too little between
// what compression keeps as it is: it says the conversation's size, what
// is kept and where compression starts by itself.
type TooShortError struct {
	Tokens, FirstN, TailTokens, StartsAt int
}

func (e *TooShortError) Error() string {
	return fmt.Sprintf("%v: it is ~%d tokens, and compression keeps the first %d messages and the last ~%d tokens as they are (compression.protect_first_n, compression.target_ratio), so there is too little between them to summarize. "+
		"It starts by itself past ~%d tokens (compression.threshold of the context window)", ErrNothingToCompress, e.Tokens, e.FirstN, e.TailTokens, e.StartsAt)
}

func (e *TooShortError) Unwrap() error { return ErrNothingToCompress }

// Compress compresses a session now, whatever its size, focusing the
// summary on focus when it is not empty ("/compress the deploy"), and
// returns the child session the conversation continues in.
func (e *Engine) Compress(ctx context.Context, sessionID, focus string) (*Compressed, error) {
	if e.opt.Compressor == nil {
		return nil, errors.New("compression is off (compression.enabled: false)")
	}
	return e.compressNow(ctx, sessionID, focus, nil)
}

// Tidy compresses a session before a turn when its stored conversation
// fills more than share of the context window, and returns nil when it
// does not (or compression is off). It is seed 000's second layer, the
// gateway's session hygiene: the loop compresses at its own threshold
// during a turn, but a chat session can arrive at a turn already too big
// for it (a compression that failed and is cooling down, a threshold set
// near 1, a session grown by another front), and one message more would
// then overflow the window before the loop could act.
func (e *Engine) Tidy(ctx context.Context, sessionID string, share float64) (*Compressed, error) {
	comp := e.opt.Compressor
	if comp == nil || sessionID == "" {
		return nil, nil
	}
	due := func(history []llm.Message) bool { return comp.Past(comp.Estimate(history), share) }
	// Nearly every turn finds its session small enough. Deciding that
	// from a read keeps the turn lock and the lease (a write) off the
	// way of every message; a session past the share is checked again
	// under them.
	history, err := e.history(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if !due(history) {
		return nil, nil
	}
	return e.compressNow(ctx, sessionID, "", due)
}

// compressNow compresses a session under its lock and lease, when due
// (nil: always) says its history should be; it returns nil when it
// should not.
func (e *Engine) compressNow(ctx context.Context, sessionID, focus string, due func([]llm.Message) bool) (*Compressed, error) {
	box, err := e.Toolbox(nil)
	if err != nil {
		return nil, err
	}
	ctx, lease, release, err := e.hold(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	defer release()
	s, err := e.opt.Store.Get(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	history, err := e.history(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if due != nil && !due(history) {
		return nil, nil
	}
	res, err := e.opt.Compressor.Compress(ctx, history, compress.CompressOptions{Force: true, Focus: focus})
	if err != nil {
		return nil, fmt.Errorf("compression failed, the conversation is unchanged: %w", err)
	}
	if !gained(res) {
		first, tail, starts := e.opt.Compressor.Kept()
		return nil, &TooShortError{Tokens: res.Before, FirstN: first, TailTokens: tail, StartsAt: starts}
	}
	child, _, err := e.continueIn(ctx, s, res.Messages, s.Model, box, lease)
	if err != nil {
		return nil, err
	}
	return &Compressed{SessionID: child.ID, Before: res.Before, After: res.After, Fallback: res.Fallback}, nil
}
