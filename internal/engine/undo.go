package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/compress"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// ErrNothingToUndo is Undo's error when the session holds no message of
// the user's that can be taken back.
var ErrNothingToUndo = errors.New("nothing to undo")

// Undone is what Undo took back.
type Undone struct {
	// Removed is how many messages went: the user's message and
	// everything after it.
	Removed int
	// Text is the user's message as it was stored, for sending it again.
	Text string
}

// Undo takes back the last exchange of a session: its last user message
// and everything after it (the answer, tool calls and their results). It
// holds the session's turn lock and lease while it does, so no turn runs
// meanwhile, here or in another process, and it drops what this process
// kept of the session (history, wire encoding, prompt and the tools'
// state it was rebuilt from) so the next turn sends only what is left.
//
// Undoing the first message clears the session's title, which was made
// from it. The messages a compression carried into a session are not
// undone: a
// summary holds what came before it, so an exchange at or before the
// summary gives an error that says so; the full history stays in the
// parent session.
func (e *Engine) Undo(ctx context.Context, sessionID string) (*Undone, error) {
	if sessionID == "" {
		return nil, fmt.Errorf("%w: the session has no messages yet", ErrNothingToUndo)
	}
	ctx, _, release, err := e.hold(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	defer release()
	msgs, err := e.opt.Store.Messages(ctx, sessionID)
	if errors.Is(err, session.ErrNotFound) {
		return nil, errSessionNotFound(sessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("reading session %s: %w", sessionID, err)
	}
	last := lastUserMessage(msgs)
	if last < 0 {
		return nil, fmt.Errorf("%w: session %s has no message of yours", ErrNothingToUndo, sessionID)
	}
	for _, m := range msgs[last:] {
		if strings.HasPrefix(m.Text(), compress.SummaryMarker) {
			return nil, fmt.Errorf("%w: the earlier exchanges of session %s were compressed into its summary; they stay in the session it continues", ErrNothingToUndo, sessionID)
		}
	}
	var after int64
	if last > 0 {
		after = msgs[last-1].ID
	}
	removed, err := e.opt.Store.Rewind(ctx, sessionID, after)
	e.forget(sessionID)
	if err != nil {
		return nil, fmt.Errorf("undoing the last exchange of session %s: %w", sessionID, err)
	}
	if lastUserMessage(msgs[:last]) < 0 {
		// The title was made from the first message, which is gone: the
		// next message titles the session again.
		if err := e.opt.Store.SetTitle(ctx, sessionID, ""); err != nil {
			return nil, fmt.Errorf("clearing the title of session %s: %w", sessionID, err)
		}
	}
	return &Undone{Removed: removed, Text: msgs[last].Text()}, nil
}

// lastUserMessage is the index of the last message the user sent, -1
// when there is none.
func lastUserMessage(msgs []session.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return i
		}
	}
	return -1
}

// forget drops everything this process kept of a session's messages: the
// stored history, the wire encoding of it, the prompt (whose first use
// gives the tools their state back from the history), and the size at
// which compressing it last saved too little.
func (e *Engine) forget(sessionID string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.histories, sessionID)
	delete(e.wires, sessionID)
	delete(e.prompts, sessionID)
	delete(e.noGain, sessionID)
}
