package main

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/hermes-go/hermes"
)

// server answers /ask for the callers its tokens name.
type server struct {
	agent  *hermes.Agent
	tokens map[string]string // token → user

	mu     sync.Mutex
	owners map[string]string // session → user
}

func newServer(agent *hermes.Agent, tokens map[string]string) http.Handler {
	s := &server{agent: agent, tokens: tokens, owners: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /ask", s.ask)
	return mux
}

type askRequest struct {
	Session string `json:"session"`
	Text    string `json:"text"`
}

type askReply struct {
	Session string `json:"session"`
	Text    string `json:"text"`
	Stopped string `json:"stopped"`
}

// ask runs one turn for the caller, in a new session or one of theirs.
func (s *server) ask(w http.ResponseWriter, r *http.Request) {
	user, ok := s.caller(r)
	if !ok {
		http.Error(w, "unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
		return
	}
	var req askRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil || strings.TrimSpace(req.Text) == "" {
		http.Error(w, `bad request: send {"text": "...", "session": "optional id"}`, http.StatusBadRequest)
		return
	}
	// A session id is not a secret: someone else's is refused as unknown,
	// so a caller can neither read nor continue another's conversation.
	if req.Session != "" && s.owner(req.Session) != user {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	reply, err := s.agent.Run(r.Context(), hermes.Turn{Session: req.Session, Text: req.Text, Toolsets: []string{"todo"}}, nil)
	switch {
	case errors.Is(err, hermes.ErrNoSession):
		http.Error(w, "no such session", http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, "the agent could not answer", http.StatusServiceUnavailable)
		return
	}
	s.mu.Lock()
	s.owners[reply.Session] = user
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(askReply{Session: reply.Session, Text: reply.Text, Stopped: reply.Stopped})
}

// caller is the user of the request's bearer token.
func (s *server) caller(r *http.Request) (string, bool) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return "", false
	}
	for token, user := range s.tokens {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
			return user, true
		}
	}
	return "", false
}

func (s *server) owner(session string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owners[session]
}
