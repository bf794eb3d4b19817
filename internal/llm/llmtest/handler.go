package llmtest

import (
	"fmt"
	"io"
	"net/http"
	"slices"
)

// violate records one violation.
func (s *Server) violate(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.violations = append(s.violations, msg)
}

// serveHTTP routes a request, records it and answers it with the next
// scripted reply.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		s.mu.Lock()
		f := s.served
		s.mu.Unlock()
		if f != nil {
			f()
		}
	}()
	if r.URL.Path == "/v1/models" {
		s.serveModels(w, r)
		return
	}
	if r.URL.Path == "/v1/embeddings" {
		s.serveEmbeddings(w, r)
		return
	}
	api, ok := apiAt(r.URL.Path)
	if !ok {
		s.violate(fmt.Sprintf("%s %s: unknown path", r.Method, r.URL.Path))
		writeHTTPError(w, protocolFor(guessAPI(r)), http.StatusNotFound, ErrorReply{Message: "Unknown request URL: " + r.Method + " " + r.URL.Path}, "")
		return
	}
	body, ok := s.readPost(w, r, api)
	if !ok {
		return
	}
	req := Request{Path: r.URL.Path, API: api, Header: r.Header.Clone(), Body: body}
	problems, valid := decode(&req)
	if valid {
		problems = append(problems, checkConversation(&req)...)
	}

	s.mu.Lock()
	req.Index = len(s.requests)
	s.requests = append(s.requests, req)
	for _, p := range sortProblems(problems) {
		s.violations = append(s.violations, p.format(&req))
	}
	if !valid {
		s.mu.Unlock()
		writeHTTPError(w, protocolFor(api), http.StatusBadRequest, ErrorReply{Message: problems[0].msg}, requestID(req.Index))
		return
	}
	var (
		rep  Reply
		have bool
	)
	if len(s.queue) > 0 {
		rep, s.queue, have = s.queue[0], s.queue[1:], true
	}
	h := s.handler
	s.mu.Unlock()

	if !have && h != nil {
		rep, have = h(req), true
	}
	if !have {
		s.violate(fmt.Sprintf("request %d (%s): unexpected request: no reply enqueued and no handler set", req.Index, req.API))
		writeHTTPError(w, protocolFor(api), http.StatusInternalServerError, ErrorReply{Message: "llmtest: unexpected request (nothing scripted)"}, requestID(req.Index))
		return
	}
	s.respond(w, r, &req, rep)
}

// guessAPI picks the error envelope for a request to an unknown path: an
// Anthropic client is recognised by its version header.
func guessAPI(r *http.Request) API {
	if r.Header.Get("anthropic-version") != "" {
		return AnthropicMessages
	}
	return ChatCompletions
}

// modelsCreated is the creation time every listed model reports, fixed so
// that replies are the same on every run.
const modelsCreated = 1735689600 // 2025-01-01T00:00:00Z

// serveModels answers GET /v1/models in OpenAI's list shape, or in
// Anthropic's paginated shape when the client sent anthropic-version.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		s.violate(fmt.Sprintf("%s %s: method not allowed (want GET)", r.Method, r.URL.Path))
		w.Header().Set("Allow", http.MethodGet)
		writeHTTPError(w, protocolFor(guessAPI(r)), http.StatusMethodNotAllowed, ErrorReply{Message: "Method not allowed: " + r.Method}, "")
		return
	}
	s.mu.Lock()
	ids := slices.Clone(s.models)
	s.mu.Unlock()
	data := make([]map[string]any, 0, len(ids))
	if guessAPI(r) == AnthropicMessages {
		for _, id := range ids {
			data = append(data, map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"})
		}
		first, last := "", ""
		if len(ids) > 0 {
			first, last = ids[0], ids[len(ids)-1]
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": data, "has_more": false, "first_id": first, "last_id": last})
		return
	}
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": modelsCreated, "owned_by": "llmtest"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// readPost reads the body of a POST, answering and recording any other
// method as a violation; false when there is nothing to answer.
func (s *Server) readPost(w http.ResponseWriter, r *http.Request, api API) ([]byte, bool) {
	if r.Method != http.MethodPost {
		s.violate(fmt.Sprintf("%s %s: method not allowed (want POST)", r.Method, r.URL.Path))
		w.Header().Set("Allow", http.MethodPost)
		writeHTTPError(w, protocolFor(api), http.StatusMethodNotAllowed, ErrorReply{Message: "Method not allowed: " + r.Method}, "")
		return nil, false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, false // the client went away while sending
	}
	return body, true
}
