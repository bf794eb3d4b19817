package hermesagent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// Store is what the import needs of a session store.
type Store interface {
	Get(ctx context.Context, id string) (*session.Session, error)
	Create(ctx context.Context, s *session.Session) error
	Append(ctx context.Context, sessionID string, msgs ...*session.Message) error
	SetSystemPrompt(ctx context.Context, sessionID, prompt string) error
	Delete(ctx context.Context, sessionID string) error
}

// SessionReport is what an import of sessions did.
type SessionReport struct {
	// Sessions and Messages were imported; Skipped sessions were there
	// already (imported before, or continued in hermes since); Redone
	// were found half imported (a run cut off) and imported again.
	Sessions, Messages, Skipped, Redone int
	// Took is the import's time.
	Took time.Duration
}

// ImportSessions imports the sessions and messages of Hermes's state.db at
// path into st: every session, parents before the sessions that continue
// them (compression, branches), with its title, model, times, end, token
// totals, cost and system prompt, and its live messages with their tool
// calls, tool results and reasoning. A session already in st with as many
// messages or more is skipped; one with fewer, the remains of a run cut
// off, is imported again. With dryRun nothing is written, and the report
// says what would be.
func ImportSessions(ctx context.Context, st Store, path string, dryRun bool) (SessionReport, error) {
	start := time.Now()
	var rep SessionReport
	db, err := openState(ctx, path)
	if err != nil {
		return rep, err
	}
	defer db.Close()
	hs, err := readSessions(ctx, db)
	if err != nil {
		return rep, err
	}
	for _, h := range hs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		msgs, err := readMessages(ctx, db, h.id)
		if err != nil {
			return rep, err
		}
		done, redo, err := present(ctx, st, h.id, len(msgs))
		if err != nil {
			return rep, err
		}
		if done {
			rep.Skipped++
			continue
		}
		if !dryRun {
			if err := importOne(ctx, st, h, msgs, redo); err != nil {
				return rep, err
			}
		}
		if redo {
			rep.Redone++
		}
		rep.Sessions++
		rep.Messages += len(msgs)
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// present tells whether session id is in st with n messages or more
// (done), or with fewer (redo).
func present(ctx context.Context, st Store, id string, n int) (done, redo bool, err error) {
	s, err := st.Get(ctx, id)
	switch {
	case errors.Is(err, session.ErrNotFound):
		return false, false, nil
	case err != nil:
		return false, false, fmt.Errorf("look up session %s: %w", id, err)
	case s.MessageCount >= n:
		return true, false, nil
	}
	return false, true, nil
}

// importOne writes one session and its messages, first deleting what a
// run cut off left of it.
func importOne(ctx context.Context, st Store, h hermesSession, hm []hermesMessage, redo bool) error {
	if redo {
		if err := st.Delete(ctx, h.id); err != nil {
			return fmt.Errorf("delete the half-imported session %s: %w", h.id, err)
		}
	}
	s := sessionOf(h)
	if err := st.Create(ctx, &s); err != nil {
		return fmt.Errorf("import session %s: %w", h.id, err)
	}
	if h.systemPrompt != "" {
		if err := st.SetSystemPrompt(ctx, h.id, h.systemPrompt); err != nil {
			return fmt.Errorf("import the system prompt of %s: %w", h.id, err)
		}
	}
	if len(hm) == 0 {
		return nil
	}
	msgs := make([]*session.Message, len(hm))
	for i, m := range hm {
		sm := messageOf(m)
		msgs[i] = &sm
	}
	if err := st.Append(ctx, h.id, msgs...); err != nil {
		return fmt.Errorf("import the messages of %s: %w", h.id, err)
	}
	return nil
}
