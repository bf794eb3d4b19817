package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Text limits of session_search's output, in characters: a message
// longer than its limit shows its beginning and end (a hit shows its
// snippet instead, which holds the match), a tool call its name and the
// start of its arguments.
const (
	maxTextRunes    = 500
	maxContextRunes = 300
	tailRunes       = 120
	maxArgsRunes    = 160
)

// searchResult is what session_search returns.
type searchResult struct {
	Mode     string          `json:"mode"` // "search", "read" or "recent"
	Query    string          `json:"query,omitempty"`
	Sessions []sessionResult `json:"sessions"`
	Note     string          `json:"note,omitempty"`
}

// sessionResult is one session in the output, with its best hit when
// searching and its messages when reading.
type sessionResult struct {
	SessionID string           `json:"session_id"`
	RootID    string           `json:"root_session_id,omitempty"` // only when not the session itself
	Title     string           `json:"title,omitempty"`
	Source    string           `json:"source,omitempty"`
	Started   string           `json:"started,omitempty"`
	Messages  int              `json:"message_count,omitempty"`
	Snippet   string           `json:"snippet,omitempty"`
	Context   []compactMessage `json:"messages,omitempty"`
}

// compactMessage is a message cut down for the model to read.
type compactMessage struct {
	ID    int64    `json:"id"`
	Role  string   `json:"role"`
	Tool  string   `json:"tool,omitempty"`
	Time  string   `json:"time,omitempty"`
	Text  string   `json:"text,omitempty"`
	Calls []string `json:"calls,omitempty"`
	Hit   bool     `json:"hit,omitempty"`
}

// search finds the best hit of up to limit lineages (one per RootID),
// skipping the session current, and shows the messages around each.
func (t *searchTool) search(ctx context.Context, query string, opt SearchOptions, limit, around int, current string) (*searchResult, error) {
	if opt.SessionID != "" {
		if _, err := t.store.Get(ctx, opt.SessionID); err != nil {
			return nil, err
		}
	}
	opt.Limit = limit * searchOverfetch
	hits, err := t.store.Search(ctx, query, opt)
	if err != nil {
		return nil, err
	}
	res := &searchResult{Mode: "search", Query: query, Sessions: []sessionResult{}}
	seen := map[string]bool{}
	for _, h := range hits {
		if len(res.Sessions) == limit {
			break
		}
		if h.SessionID == current {
			continue
		}
		// Within one session every hit is wanted; across sessions one
		// per lineage, the best.
		if opt.SessionID == "" && seen[h.RootID] {
			continue
		}
		// The session or message may be deleted meanwhile: skip the hit.
		sess, err := t.store.Get(ctx, h.SessionID)
		if errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		msgs, err := t.store.Around(ctx, h.MessageID, around)
		if errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		r := describe(sess)
		r.Snippet = h.Snippet
		if h.RootID != h.SessionID {
			r.RootID = h.RootID
		}
		for _, m := range msgs {
			if m.ID != h.MessageID {
				c := compact(m, maxContextRunes)
				c.Time = ""
				r.Context = append(r.Context, c)
				continue
			}
			c := compact(m, maxTextRunes)
			c.Hit = true
			if utf8.RuneCountInString(m.Text()) > maxTextRunes && h.Snippet != "" {
				c.Text = h.Snippet
			}
			r.Context = append(r.Context, c)
		}
		res.Sessions = append(res.Sessions, r)
		seen[h.RootID] = true
	}
	if len(res.Sessions) == 0 {
		res.Note = "No matches. Try fewer or other words, alternatives joined with OR, or part of a word."
	}
	return res, nil
}

// read returns one session and its messages, the middle of a long one
// left out.
// mine checks that session id is user's, when user is set: ErrNotFound
// otherwise, as for a session that does not exist.
func (t *searchTool) mine(ctx context.Context, id, user string) error {
	if user == "" {
		return nil
	}
	s, err := t.store.Get(ctx, id)
	if err == nil && s.User != user {
		err = ErrNotFound
	}
	return err
}

func (t *searchTool) read(ctx context.Context, id string) (*searchResult, error) {
	sess, err := t.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	msgs, err := t.store.Messages(ctx, id)
	if err != nil {
		return nil, err
	}
	r := describe(sess)
	res := &searchResult{Mode: "read"}
	if len(msgs) > readMaxMessages {
		skipped := len(msgs) - readMaxMessages
		res.Note = fmt.Sprintf("%d messages in the middle are left out; search inside the session (query with session_id) to find them.", skipped)
		msgs = append(msgs[:readHead:readHead], msgs[readHead+skipped:]...)
	}
	for _, m := range msgs {
		r.Context = append(r.Context, compact(m, maxTextRunes))
	}
	res.Sessions = []sessionResult{r}
	return res, nil
}

// recent lists the latest sessions, except the session current.
func (t *searchTool) recent(ctx context.Context, limit int, current, user string) (*searchResult, error) {
	list, err := t.store.List(ctx, ListOptions{Limit: limit + 1, User: user})
	if err != nil {
		return nil, err
	}
	res := &searchResult{Mode: "recent", Sessions: []sessionResult{}}
	for i := range list {
		if list[i].ID != current && len(res.Sessions) < limit {
			res.Sessions = append(res.Sessions, describe(&list[i]))
		}
	}
	return res, nil
}

// describe is a session's header in the output.
func describe(s *Session) sessionResult {
	return sessionResult{SessionID: s.ID, Title: s.Title, Source: s.Source,
		Started: formatTime(s.StartedAt), Messages: s.MessageCount}
}

// compact cuts a message down to its role, time, text shortened to n
// characters, and calls.
func compact(m Message, n int) compactMessage {
	c := compactMessage{ID: m.ID, Role: string(m.Role), Tool: m.Name, Time: formatTime(m.CreatedAt),
		Text: shorten(m.Text(), n)}
	if m.HasImages() {
		c.Text = strings.TrimSpace(c.Text + " [image]")
	}
	for _, tc := range m.ToolCalls {
		c.Calls = append(c.Calls, tc.Name+"("+shorten(tc.Arguments, maxArgsRunes)+")")
	}
	return c
}

// shorten keeps s whole when it has at most n characters; otherwise its
// beginning and its last tailRunes characters, saying how much is gone.
func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	tail := min(tailRunes, n/3)
	head := n - tail
	r := []rune(s)
	return fmt.Sprintf("%s …[%d chars left out]… %s", string(r[:head]), total-head-tail, string(r[total-tail:]))
}

// formatTime is a timestamp for the model: to the minute, in UTC.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
