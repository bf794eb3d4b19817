package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/session"
)

// Bounds of what one page reads, so that a page costs the same over a
// store of any size.
const (
	recentSessions = 12  // sessions whose turns the turns page shows
	recentTurns    = 30  // turns it shows
	tailMessages   = 60  // messages it reads of each session, the newest
	listed         = 50  // sessions or hits a list shows
	shownMessages  = 500 // messages one session's page shows, the newest
)

// turnsData is the turns page: the turns running now, then the recent.
type turnsData struct {
	Live, Recent []turn
	// Others are live sessions not among the recent ones (a long
	// session resumed): only their ids and holders are shown.
	Others []Live
}

// turns shows the turns running now and the recent ones, with their tool
// calls as timelines; the page reloads itself while a turn runs.
func (d *Dashboard) turns(w http.ResponseWriter, r *http.Request, csrf string) {
	ctx := r.Context()
	now := d.opt.Clock.Now()
	live := map[string]Live{}
	if d.opt.Live != nil {
		ls, err := d.opt.Live(ctx)
		if err != nil {
			d.fail(w, r, "turns", csrf, err)
			return
		}
		for _, l := range ls {
			live[l.SessionID] = l
		}
	}
	list, err := d.opt.Sessions.List(ctx, session.ListOptions{Source: d.opt.Source, Limit: recentSessions})
	if err != nil {
		d.fail(w, r, "turns", csrf, err)
		return
	}
	var data turnsData
	seen := map[string]bool{}
	for _, s := range list {
		msgs, err := d.lastMessages(ctx, s.ID, tailMessages)
		if err != nil {
			d.fail(w, r, "turns", csrf, err)
			return
		}
		_, running := live[s.ID]
		seen[s.ID] = true
		ts := turnsOf(s, msgs, running, now, d.opt.Redact)
		if running && len(ts) > 0 {
			data.Live = append(data.Live, ts[len(ts)-1])
			ts = ts[:len(ts)-1]
		}
		data.Recent = append(data.Recent, ts...)
	}
	for id, l := range live {
		if !seen[id] && d.visible(ctx, id) {
			data.Others = append(data.Others, l)
		}
	}
	slices.SortFunc(data.Others, func(a, b Live) int { return strings.Compare(a.SessionID, b.SessionID) })
	slices.SortFunc(data.Recent, func(a, b turn) int { return b.Start.Compare(a.Start) })
	data.Recent = data.Recent[:min(len(data.Recent), recentTurns)]
	d.render(w, r, http.StatusOK, "turns", page{Title: "Turns", CSRF: csrf, Data: data,
		Refresh: len(data.Live)+len(data.Others) > 0})
}

// sessionsData is the sessions page: a search's hits, or the list.
type sessionsData struct {
	Query    string
	Hits     []hit
	Sessions []session.Session
	Page     int
	More     bool
}

// Prev and Next are the pages of newer and older sessions.
func (s sessionsData) Prev() int { return s.Page - 1 }
func (s sessionsData) Next() int { return s.Page + 1 }

// hit is a search hit with its snippet split at the matches, so the
// template marks them without any markup from the store reaching the
// page.
type hit struct {
	session.Hit
	Parts []snippetPart
}

type snippetPart struct {
	Text  string
	Match bool
}

// sessions lists the sessions, newest first, or searches their messages
// with the store's full-text search.
func (d *Dashboard) sessions(w http.ResponseWriter, r *http.Request, csrf string) {
	ctx := r.Context()
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	data := sessionsData{Query: q}
	if q != "" {
		hits, err := d.opt.Sessions.Search(ctx, q, session.SearchOptions{Source: d.opt.Source, Limit: listed})
		if err != nil {
			d.fail(w, r, "sessions", csrf, err)
			return
		}
		for _, h := range hits {
			h.SessionTitle = d.opt.Redact(h.SessionTitle)
			data.Hits = append(data.Hits, hit{Hit: h, Parts: splitSnippet(d.opt.Redact(h.Snippet))})
		}
	} else {
		n, err := strconv.Atoi(cmp.Or(r.URL.Query().Get("page"), "0"))
		if err != nil || n < 0 || n > 100000 {
			d.render(w, r, http.StatusBadRequest, "sessions", page{Title: "Sessions", CSRF: csrf,
				Error: fmt.Sprintf("page: %q is not accepted; use a whole number from 0 to 100000", r.URL.Query().Get("page"))})
			return
		}
		list, err := d.opt.Sessions.List(ctx, session.ListOptions{Source: d.opt.Source, Limit: listed + 1, Offset: n * listed})
		if err != nil {
			d.fail(w, r, "sessions", csrf, err)
			return
		}
		data.Page, data.More = n, len(list) > listed
		for _, s := range list[:min(len(list), listed)] {
			s.Title = d.opt.Redact(s.Title)
			data.Sessions = append(data.Sessions, s)
		}
	}
	d.render(w, r, http.StatusOK, "sessions", page{Title: "Sessions", CSRF: csrf, Data: data})
}

// splitSnippet splits a snippet at the store's match marks.
func splitSnippet(s string) []snippetPart {
	var out []snippetPart
	for s != "" {
		i := strings.Index(s, ">>>")
		if i < 0 {
			return append(out, snippetPart{Text: s})
		}
		if i > 0 {
			out = append(out, snippetPart{Text: s[:i]})
		}
		s = s[i+3:]
		j := strings.Index(s, "<<<")
		if j < 0 {
			return append(out, snippetPart{Text: s, Match: true})
		}
		out = append(out, snippetPart{Text: s[:j], Match: true})
		s = s[j+3:]
	}
	return out
}

// sessionData is one session's page.
type sessionData struct {
	Session  *session.Session
	Messages []message
	// Hidden counts the older messages not shown.
	Hidden int
	Turns  []turn
}

// message is a stored message as the page shows it, redacted.
type message struct {
	ID    int64
	Role  string
	Time  string
	Text  string
	Tool  string
	Calls []call
}

// session shows one session's messages and its turns' timelines.
func (d *Dashboard) session(w http.ResponseWriter, r *http.Request, csrf string) {
	ctx := r.Context()
	id := r.PathValue("id")
	s, err := d.opt.Sessions.Get(ctx, id)
	if err == nil && d.opt.Source != "" && s.Source != d.opt.Source {
		err = session.ErrNotFound
	}
	if errors.Is(err, session.ErrNotFound) {
		d.render(w, r, http.StatusNotFound, "session", page{Title: "Session", CSRF: csrf,
			Error: fmt.Sprintf("session %q does not exist; pick one from the list of sessions", id)})
		return
	}
	if err != nil {
		d.fail(w, r, "session", csrf, err)
		return
	}
	msgs, err := d.lastMessages(ctx, id, shownMessages)
	if err != nil {
		d.fail(w, r, "session", csrf, err)
		return
	}
	live := d.isLive(ctx, id)
	s.Title = d.opt.Redact(s.Title)
	data := sessionData{Session: s, Turns: turnsOf(*s, msgs, live, d.opt.Clock.Now(), d.opt.Redact)}
	if len(msgs) > shownMessages {
		msgs = msgs[len(msgs)-shownMessages:]
	}
	data.Hidden = max(s.MessageCount-len(msgs), 0)
	for _, m := range msgs {
		mm := message{ID: m.ID, Role: string(m.Role), Time: when(m.CreatedAt), Text: short(4000, d.opt.Redact(m.Text())), Tool: m.Name}
		for _, tc := range m.ToolCalls {
			mm.Calls = append(mm.Calls, call{Name: tc.Name, Args: short(2000, d.opt.Redact(tc.Arguments))})
		}
		data.Messages = append(data.Messages, mm)
	}
	d.render(w, r, http.StatusOK, "session", page{Title: "Session " + s.ID, CSRF: csrf, Data: data, Refresh: live})
}

// lastMessages reads the newest n messages of a session: alone when
// the store can, else all of them, cut.
func (d *Dashboard) lastMessages(ctx context.Context, id string, n int) ([]session.Message, error) {
	if l, ok := d.opt.Sessions.(LastMessager); ok {
		return l.LastMessages(ctx, id, n)
	}
	msgs, err := d.opt.Sessions.Messages(ctx, id)
	return msgs[max(len(msgs)-n, 0):], err
}

// visible reports whether the dashboard shows the session (see
// Options.Source).
func (d *Dashboard) visible(ctx context.Context, id string) bool {
	if d.opt.Source == "" {
		return true
	}
	s, err := d.opt.Sessions.Get(ctx, id)
	return err == nil && s.Source == d.opt.Source
}

// isLive reports whether a turn runs in the session now.
func (d *Dashboard) isLive(ctx context.Context, id string) bool {
	if d.opt.Live == nil {
		return false
	}
	ls, err := d.opt.Live(ctx)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(ls, func(l Live) bool { return l.SessionID == id })
}
