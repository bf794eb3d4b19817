package api

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/internal/session"
)

// sessionAPI serves /v1/sessions: the hermes sessions commands over
// HTTP, through the same store, limited to the sessions a key may see.
type sessionAPI struct {
	a *Admin
}

func (s *Server) routeSessions(a *Admin) {
	h := &sessionAPI{a: a}
	s.mux.HandleFunc("GET /v1/sessions", h.list)
	s.mux.HandleFunc("GET /v1/sessions/search", h.search)
	s.mux.HandleFunc("GET /v1/sessions/{id}", h.get)
	s.mux.HandleFunc("GET /v1/sessions/{id}/messages", h.messages)
	s.mux.HandleFunc("DELETE /v1/sessions/{id}", h.delete)
}

// source is the source the store is asked for: the API's own unless all
// are open.
func (h *sessionAPI) source() string {
	if h.a.AllSources {
		return ""
	}
	return SessionSource
}

func (h *sessionAPI) list(w http.ResponseWriter, r *http.Request) {
	limit, bad := queryInt(r, "limit", 20, 1, 1000)
	if bad != nil {
		writeBad(w, bad)
		return
	}
	src := r.URL.Query().Get("source")
	if src != "" && !h.a.AllSources && src != SessionSource {
		writeBad(w, &badRequest{http.StatusBadRequest, "source", fmt.Sprintf("source: %q is not accepted; only the API's own sessions (source %s) are seen through it, unless api.sessions is all in config.yaml", src, SessionSource)})
		return
	}
	opt := session.ListOptions{Source: cmp.Or(src, h.source()), Limit: limit}
	opt.User, opt.Tenant = scope(CallerFrom(r.Context()))
	list, err := h.a.Sessions.List(r.Context(), opt)
	if err != nil {
		h.fail(w, err)
		return
	}
	for i := range list {
		list[i].Title = h.a.Redact(list[i].Title)
	}
	writeList(w, list)
}

// find returns the session of the path's id, or writes 404 when there is
// none or it is not one the key may see: both get the same answer.
func (h *sessionAPI) find(w http.ResponseWriter, r *http.Request) *session.Session {
	id := r.PathValue("id")
	s, err := h.a.Sessions.Get(r.Context(), id)
	hidden := err == nil && (!h.a.AllSources && s.Source != SessionSource || !CallerFrom(r.Context()).Sees(s))
	if errors.Is(err, session.ErrNotFound) || hidden {
		writeError(w, http.StatusNotFound, "invalid_request_error", "id", fmt.Sprintf("session %q does not exist; GET /v1/sessions lists the sessions there are", id))
		return nil
	}
	if err != nil {
		h.fail(w, err)
		return nil
	}
	s.Title = h.a.Redact(s.Title)
	return s
}

func (h *sessionAPI) get(w http.ResponseWriter, r *http.Request) {
	if s := h.find(w, r); s != nil {
		writeJSON(w, http.StatusOK, s)
	}
}

// messages answers a session's messages in order, limit at a time after
// the message id after; has_more says whether another page follows.
func (h *sessionAPI) messages(w http.ResponseWriter, r *http.Request) {
	limit, bad := queryInt(r, "limit", 100, 1, 1000)
	after := 0
	if bad == nil {
		after, bad = queryInt(r, "after", 0, 0, 1<<62)
	}
	if bad != nil {
		writeBad(w, bad)
		return
	}
	s := h.find(w, r)
	if s == nil {
		return
	}
	msgs, err := h.a.Sessions.Messages(r.Context(), s.ID)
	if err != nil {
		h.fail(w, err)
		return
	}
	start := len(msgs)
	for i, m := range msgs {
		if m.ID > int64(after) {
			start = i
			break
		}
	}
	msgs = msgs[start:]
	more := len(msgs) > limit
	msgs = msgs[:min(limit, len(msgs))]
	for i := range msgs {
		h.redactMessage(&msgs[i])
	}
	if msgs == nil {
		msgs = []session.Message{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": msgs, "has_more": more})
}

// redactMessage cleans what a stored message may hold of a secret: a
// user can paste a key into a message, and the model can repeat it in
// its reply or pass it in a tool call. The vendors' opaque reasoning
// blocks are left out; they mean nothing to a client.
func (h *sessionAPI) redactMessage(m *session.Message) {
	for i := range m.Content {
		m.Content[i].Text = h.a.Redact(m.Content[i].Text)
	}
	for i := range m.ToolCalls {
		m.ToolCalls[i].Arguments = h.a.Redact(m.ToolCalls[i].Arguments)
	}
	m.Reasoning = h.a.Redact(m.Reasoning)
	m.ReasoningBlocks = nil
}

func (h *sessionAPI) delete(w http.ResponseWriter, r *http.Request) {
	s := h.find(w, r)
	if s == nil {
		return
	}
	if err := h.a.DeleteSession(r.Context(), s.ID); err != nil {
		h.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": s.ID, "object": "session.deleted", "deleted": true})
}

// search finds messages by the store's full-text search (words, and any
// phrase of Chinese, Japanese or Korean), in the sessions the key may see.
func (h *sessionAPI) search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		writeBad(w, &badRequest{http.StatusBadRequest, "q", "q: an empty query is not accepted; give the words or phrase to find, like ?q=invoice"})
		return
	}
	limit, bad := queryInt(r, "limit", 20, 1, 100)
	if bad != nil {
		writeBad(w, bad)
		return
	}
	opt := session.SearchOptions{Source: h.source(), Limit: limit}
	opt.User, opt.Tenant = scope(CallerFrom(r.Context()))
	hits, err := h.a.Sessions.Search(r.Context(), q, opt)
	if err != nil {
		h.fail(w, err)
		return
	}
	for i := range hits {
		hits[i].Snippet = h.a.Redact(hits[i].Snippet)
		hits[i].SessionTitle = h.a.Redact(hits[i].SessionTitle)
	}
	writeList(w, hits)
}

// scope is the user or tenant whose sessions c lists and searches: none
// for the owner, the tenant for an admin, the user's own otherwise.
func scope(c Caller) (user, tenant string) {
	switch {
	case c.Owner():
		return "", ""
	case c.Admin && c.Tenant != "":
		return "", c.Tenant
	default:
		return c.User, ""
	}
}

// fail answers an error of the store or the runtime: an *Error as it
// says, a session gone meanwhile as 404, anything else as 500 with its
// message redacted.
func (h *sessionAPI) fail(w http.ResponseWriter, err error) {
	writeFailure(w, err, h.a.Redact, session.ErrNotFound)
}

// writeFailure answers err: an *Error with its status, one wrapping
// notFound with 404, anything else 500; the message is redacted.
func writeFailure(w http.ResponseWriter, err error, redact func(string) string, notFound error) {
	status, param, typ := http.StatusInternalServerError, "", "api_error"
	var ae *Error
	switch {
	case errors.As(err, &ae):
		status, param, typ = ae.Status, ae.Param, "invalid_request_error"
	case errors.Is(err, notFound):
		status, typ = http.StatusNotFound, "invalid_request_error"
	}
	writeError(w, status, typ, param, redact(err.Error()))
}
