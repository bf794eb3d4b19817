package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/memory/facts"
	"github.com/hermes-go/hermes/session"
)

// recallLimit is how many facts at most go before a session's first
// message.
const recallLimit = 5

// longTerm is long-term memory as the chat uses it: recall at the first
// message of a session, extraction when a session ends or goes idle.
type longTerm struct {
	store    *facts.Store
	sessions session.Store
	provider llm.Provider
	model    string
	log      *slog.Logger

	mu   sync.Mutex
	done map[string]int // session → message count at its last extraction
	wg   sync.WaitGroup
}

// recall returns the marked block of facts relevant to text, or "".
func (m *longTerm) recall(ctx context.Context, text string) string {
	found, err := facts.Recall(ctx, m.store, text, recallLimit)
	if err != nil {
		m.log.Warn("long-term memory not recalled", "error", err)
		return ""
	}
	return facts.Block(found)
}

// extract asks the model for the lasting facts of a session and stores
// them. A session is not extracted again until it has new messages.
func (m *longTerm) extract(ctx context.Context, sessionID string) {
	msgs, err := m.sessions.Messages(ctx, sessionID)
	if err != nil || len(msgs) < 2 {
		return
	}
	m.mu.Lock()
	if m.done == nil {
		m.done = map[string]int{}
	}
	if m.done[sessionID] == len(msgs) {
		m.mu.Unlock()
		return
	}
	m.done[sessionID] = len(msgs)
	m.mu.Unlock()
	transcript := make([]llm.Message, len(msgs))
	for i, msg := range msgs {
		transcript[i] = msg.Message
	}
	found, err := facts.Extract(ctx, m.provider, m.model, sessionID, transcript)
	if err != nil {
		m.log.Warn("long-term memory not extracted", "session_id", sessionID, "error", err)
		return
	}
	n, err := m.store.Add(ctx, found)
	if err != nil {
		m.log.Warn("long-term memory not stored", "session_id", sessionID, "error", err)
		return
	}
	m.log.Info("long-term memory extracted", "session_id", sessionID, "facts", len(found), "added", n)
}

// extractLater extracts in the background; wait waits for those running.
func (m *longTerm) extractLater(ctx context.Context, sessionID string) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.extract(ctx, sessionID)
	}()
}

func (m *longTerm) wait() { m.wg.Wait() }

// extractGrace bounds the extraction a chat runs as it quits.
const extractGrace = 60 * time.Second

// idleExtractor extracts a chat session's facts when it goes idle for
// memory.extract_after, on /new, and when the chat ends.
type idleExtractor struct {
	m     *longTerm
	base  context.Context
	after time.Duration
	timer *time.Timer
}

func newIdleExtractor(rt *wiring, base context.Context) *idleExtractor {
	return &idleExtractor{m: rt.memory, base: base, after: rt.loaded.Config.Memory.ExtractAfter}
}

// turned restarts the idle clock after a turn of the session.
func (x *idleExtractor) turned(sessionID string) {
	if x.m == nil || x.after <= 0 {
		return
	}
	if x.timer != nil {
		x.timer.Stop()
	}
	x.timer = time.AfterFunc(x.after, func() { x.m.extractLater(x.base, sessionID) })
}

// ended extracts a session left with /new, in the background.
func (x *idleExtractor) ended(sessionID string) {
	if x.m == nil || sessionID == "" {
		return
	}
	if x.timer != nil {
		x.timer.Stop()
	}
	x.m.extractLater(x.base, sessionID)
}

// finish extracts the last session as the chat quits, and waits for the
// extractions still running, for at most extractGrace.
func (x *idleExtractor) finish(w io.Writer, sessionID string) {
	if x.m == nil {
		return
	}
	if x.timer != nil {
		x.timer.Stop()
	}
	if sessionID != "" {
		fmt.Fprintln(w, "(noting what to remember from this session…)")
		ctx, cancel := context.WithTimeout(context.WithoutCancel(x.base), extractGrace)
		defer cancel()
		x.m.extract(ctx, sessionID)
	}
	x.m.wait()
}
