package engine

import (
	"context"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// messagesAfter is the store's read of a session's messages after one
// it has: a session's messages are only ever appended to, so a turn in a
// session whose history is kept reads only what came since the last.
type messagesAfter interface {
	MessagesAfter(ctx context.Context, sessionID string, afterID int64) ([]session.Message, error)
}

// history is a session's stored messages kept from one turn to the next.
type history struct {
	// started tells the session from one deleted and made again under
	// the same id.
	started time.Time
	msgs    []session.Message
}

// storedHistory returns the stored messages of s, reading only those
// added since its last turn when they are kept (at most maxWires
// sessions, as their wire encodings are). What is kept is checked
// against the session's message count: anything the cache cannot account
// for (another process wrote, the session was made again) reads it all.
// Callers must hold the session's turn lock.
func (e *Engine) storedHistory(ctx context.Context, s *session.Session) ([]session.Message, error) {
	after, ok := e.opt.Store.(messagesAfter)
	if !ok {
		return e.opt.Store.Messages(ctx, s.ID)
	}
	e.mu.Lock()
	h := e.histories[s.ID]
	e.mu.Unlock()
	if h != nil && h.started.Equal(s.StartedAt) {
		var last int64
		if n := len(h.msgs); n > 0 {
			last = h.msgs[n-1].ID
		}
		more, err := after.MessagesAfter(ctx, s.ID, last)
		if err != nil {
			return nil, err
		}
		// A full slice expression: appending never writes into the
		// array an earlier caller holds.
		msgs := append(h.msgs[:len(h.msgs):len(h.msgs)], more...)
		if len(msgs) == s.MessageCount {
			e.keepHistory(s, msgs)
			return msgs, nil
		}
	}
	msgs, err := e.opt.Store.Messages(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	e.keepHistory(s, msgs)
	return msgs, nil
}

// keepHistory keeps msgs as the history of s.
func (e *Engine) keepHistory(s *session.Session, msgs []session.Message) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.histories[s.ID]; !ok && (e.histories == nil || len(e.histories) >= maxWires) {
		e.histories = make(map[string]*history)
	}
	e.histories[s.ID] = &history{started: s.StartedAt, msgs: msgs}
}
