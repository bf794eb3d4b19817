package hermes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// ErrNoSession is what the error for a session id that does not exist
// wraps (errors.Is).
var ErrNoSession = errors.New("no such session")

// sessionErr is err of the session id as the package reports it.
func sessionErr(id string, err error) error {
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("hermes: session %q: %w", id, ErrNoSession)
	}
	return fmt.Errorf("hermes: session %q: %w", id, err)
}

// SessionInfo is a stored conversation: every turn of hermes, from the
// terminal, chat platforms, the HTTP API or a program, is in one.
type SessionInfo struct {
	ID string
	// Source is where it came from: "cli", "telegram", "api", "cron",
	// "library", ...
	Source string
	Title  string
	Model  string
	// Parent is the session this one continues after a compression, "" for none.
	Parent  string
	Started time.Time
	// Ended is zero while the session is open.
	Ended        time.Time
	Messages     int
	ToolCalls    int
	InputTokens  int64
	OutputTokens int64
}

// Message is one message of a session.
type Message struct {
	// Role is "user", "assistant" or "tool".
	Role string
	Text string
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID and ToolName say which call a tool message answers.
	ToolCallID, ToolName string
	Time                 time.Time
}

// Hit is a message matching a search, with a snippet around the match.
type Hit struct {
	Session      string
	SessionTitle string
	Role         string
	Snippet      string
	Time         time.Time
}

// Sessions lists the most recent sessions first, at most limit (0: 50).
func (a *Agent) Sessions(ctx context.Context, limit int) ([]SessionInfo, error) {
	if limit <= 0 {
		limit = 50
	}
	list, err := a.app.Sessions.List(ctx, session.ListOptions{Limit: limit})
	if err != nil {
		return nil, fmt.Errorf("hermes: listing sessions: %w", err)
	}
	out := make([]SessionInfo, len(list))
	for i, s := range list {
		out[i] = info(s)
	}
	return out, nil
}

// Session returns one session; ErrNoSession when there is none of that
// id.
func (a *Agent) Session(ctx context.Context, id string) (SessionInfo, error) {
	s, err := a.app.Sessions.Get(ctx, id)
	if err != nil {
		return SessionInfo{}, sessionErr(id, err)
	}
	return info(*s), nil
}

// Messages returns a session's messages, oldest first; ErrNoSession when
// there is none of that id.
func (a *Agent) Messages(ctx context.Context, id string) ([]Message, error) {
	if _, err := a.app.Sessions.Get(ctx, id); err != nil {
		return nil, sessionErr(id, err)
	}
	msgs, err := a.app.Sessions.Messages(ctx, id)
	if err != nil {
		return nil, sessionErr(id, err)
	}
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == "system" {
			continue
		}
		om := Message{Role: string(m.Role), Text: m.Text(), ToolCallID: m.ToolCallID, ToolName: m.Name, Time: m.CreatedAt}
		for _, c := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		out = append(out, om)
	}
	return out, nil
}

// Search finds messages of every session by words (any language; CJK
// too), best first, at most limit (0: 20).
func (a *Agent) Search(ctx context.Context, query string, limit int) ([]Hit, error) {
	hits, err := a.app.Sessions.Search(ctx, query, session.SearchOptions{Limit: limit})
	if err != nil {
		return nil, fmt.Errorf("hermes: search %q: %w", query, err)
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = Hit{Session: h.SessionID, SessionTitle: h.SessionTitle, Role: string(h.Role), Snippet: h.Snippet, Time: h.CreatedAt}
	}
	return out, nil
}

func info(s session.Session) SessionInfo {
	return SessionInfo{ID: s.ID, Source: s.Source, Title: s.Title, Model: s.Model, Parent: s.ParentID,
		Started: s.StartedAt, Ended: s.EndedAt, Messages: s.MessageCount, ToolCalls: s.ToolCallCount,
		InputTokens: s.InputTokens, OutputTokens: s.OutputTokens}
}
