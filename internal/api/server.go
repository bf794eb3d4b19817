// Package api is hermes's OpenAI-compatible HTTP server: any OpenAI
// client (Open WebUI, the openai SDKs) can hold a conversation with
// hermes, whose turns run through the caller's Run function with all of
// hermes's tools, memory and sessions behind them.
package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
)

// SessionHeader names the stored session a chat completion continues;
// the response carries the session the turn ran in under the same name.
const SessionHeader = "X-Hermes-Session-Id"

// Turn is one turn the server asks to run.
type Turn struct {
	// SessionID is the stored session to continue, or empty for a new one.
	SessionID string
	// Text is the user's message, with the conversation the client sent
	// before it quoted in front when the request is stateless.
	Text string
	// Images are the image parts of the user's message.
	Images []llm.Part
	// Model is the configured model to call, or empty for the main one.
	Model string
	// Started, when set, is told the session the turn runs in once it
	// is known, before the model is called.
	Started func(sessionID string)
	// Prompter, when set, asks the client about the turn's dangerous
	// commands (a run's approvals); nil means nobody can be asked.
	Prompter safety.Prompter
	// Ready, when set, is called before Started, while no other turn of
	// the session can run; an error it returns ends the turn before
	// anything is stored, and Run returns it.
	Ready func(ctx context.Context, sessionID string) error
}

// Error is an error of Run that the client caused (an unknown session,
// a busy one): it gets Status and Message instead of a 500.
type Error struct {
	Status  int
	Param   string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Result is a finished turn.
type Result struct {
	SessionID string
	*agent.Result
}

// Options configures a Server.
type Options struct {
	// Keys are the owner's bearer tokens; with none, and no Identify,
	// every caller is let in as the owner (the caller allows that only
	// on a loopback address).
	Keys []string
	// Identify, when set, tells which user a bearer token that is not
	// one of Keys belongs to (users: in config.yaml); the request then
	// runs for that user and sees only what is theirs.
	Identify func(token string) (Caller, bool)
	// CORSOrigins are the browser origins allowed to call.
	CORSOrigins []string
	// MaxConcurrentRuns caps the turns running at once; more get 429.
	MaxConcurrentRuns int
	// MaxBodyBytes caps a request body; more gets 413.
	MaxBodyBytes int64
	// Models are the configured model names a request may name, the
	// main one first; "hermes" always names the main one.
	Models []string
	// RunsKept caps the finished runs kept for GET /v1/runs/{id}, the
	// oldest forgotten first; 0 means 256.
	RunsKept int
	// RunsKeptFor is how long a finished run is kept; 0 means an hour.
	RunsKeptFor time.Duration
	// Run runs a turn, sending its events to sink; ctx ends when the
	// client goes away.
	Run    func(ctx context.Context, t Turn, sink agent.Sink) (*Result, error)
	Clock  clock.Clock
	Logger *slog.Logger

	// Conversations reads and deletes the API's stored sessions for the
	// Responses endpoints.
	Conversations Conversations
	// Admin, when set, serves /v1/sessions and /v1/jobs.
	Admin *Admin
	// Metrics, when set, answers GET /metrics (behind the keys, like
	// every endpoint but /health).
	Metrics http.Handler
	// UI, when set, serves the dashboard under /ui; it checks the keys
	// itself (a login form and a cookie, which a browser can hold).
	UI http.Handler

	// Requests, when set, makes chat completions and responses sent
	// with an Idempotency-Key run once (IdempotencyHeader); Holder
	// names this process in its claims. Rewind and LastMessageID let a
	// replica taking over a request whose replica died undo what that
	// attempt stored in the session.
	Requests      Requests
	Holder        string
	Rewind        func(ctx context.Context, sessionID string, afterID int64) error
	LastMessageID func(ctx context.Context, sessionID string) (int64, error)

	// Replica names this server among replicas sharing one database, in
	// the ids of its runs; Peer finds where another replica serves. With
	// both, a request about a run another replica holds is passed to it
	// (run_forward.go).
	Replica string
	Peer    PeerFunc
}

// Server answers the API's endpoints.
type Server struct {
	opt   Options
	keys  [][sha256.Size]byte
	slots chan struct{}
	mux   *http.ServeMux
	runs  runs
	inUse inUse
}

// New returns a Server for opt.
func New(opt Options) *Server {
	opt.Clock = clock.OrReal(opt.Clock)
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opt: opt, slots: make(chan struct{}, max(opt.MaxConcurrentRuns, 1)), mux: http.NewServeMux()}
	for _, k := range opt.Keys {
		s.keys = append(s.keys, sha256.Sum256([]byte(k)))
	}
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("GET /v1/models", s.models)
	s.mux.HandleFunc("POST /v1/chat/completions", s.idempotent(s.chat))
	s.mux.HandleFunc("POST /v1/responses", s.idempotent(s.responses))
	s.mux.HandleFunc("POST /v1/runs", s.startRun)
	s.mux.HandleFunc("GET /v1/runs/{id}", s.forwarding(s.getRun))
	s.mux.HandleFunc("GET /v1/runs/{id}/events", s.forwarding(s.runEvents))
	s.mux.HandleFunc("POST /v1/runs/{id}/approval", s.forwarding(s.answerRun))
	s.mux.HandleFunc("POST /v1/runs/{id}/stop", s.forwarding(s.stopRun))
	s.mux.HandleFunc("GET /v1/responses/{id}", s.getResponse)
	s.mux.HandleFunc("DELETE /v1/responses/{id}", s.deleteResponse)
	s.routeAdmin()
	if opt.Metrics != nil {
		s.mux.HandleFunc("GET /metrics", ownerMetrics(opt.Metrics))
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "", fmt.Sprintf("%s %s is not an endpoint of hermes; use GET /v1/models or POST /v1/chat/completions", r.Method, r.URL.Path))
	})
	return s
}

// ServeHTTP sets the safety headers, answers CORS, checks the key and
// limits the body before any endpoint sees the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if s.opt.UI != nil && (r.URL.Path == "/ui" || strings.HasPrefix(r.URL.Path, "/ui/")) {
		s.opt.UI.ServeHTTP(w, r)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if !slices.Contains(s.opt.CORSOrigins, origin) {
			writeError(w, http.StatusForbidden, "invalid_request_error", "", fmt.Sprintf("origin %q is not allowed; add it to api.cors_origins", origin))
			return
		}
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, "+SessionHeader+", "+IdempotencyHeader)
			h.Set("Access-Control-Expose-Headers", SessionHeader)
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", SessionHeader)
	}
	if r.URL.Path != "/health" {
		c, ok := s.authorized(r)
		if !ok {
			h.Set("WWW-Authenticate", "Bearer")
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "a valid API key is needed: send Authorization: Bearer KEY with a key of api.keys, HERMES_API_KEY or a user's key")
			return
		}
		r = r.WithContext(WithCaller(r.Context(), c))
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.opt.MaxBodyBytes)
	s.mux.ServeHTTP(w, r)
}

// authorized tells who the bearer token is: the owner when it is one of
// the keys, compared with every key in constant time (over hashes, so
// neither the length nor the content leaks), else the user Identify
// finds. With no keys and no users, everyone is the owner.
func (s *Server) authorized(r *http.Request) (Caller, bool) {
	if len(s.keys) == 0 && s.opt.Identify == nil {
		return Caller{}, true
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return Caller{}, false
	}
	tok = strings.TrimSpace(tok)
	sum := sha256.Sum256([]byte(tok))
	found := 0
	for _, k := range s.keys {
		found |= subtle.ConstantTimeCompare(sum[:], k[:])
	}
	if found == 1 {
		return Caller{}, true
	}
	if s.opt.Identify == nil || tok == "" {
		return Caller{}, false
	}
	c, ok := s.opt.Identify(tok)
	return c, ok && !c.Owner()
}

// models lists hermes and the configured models.
func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := []model{{ID: "hermes", Object: "model", OwnedBy: "hermes"}}
	for _, m := range s.opt.Models {
		if m != "hermes" {
			list = append(list, model{ID: m, Object: "model", OwnedBy: "hermes"})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": list})
}

// admit starts a turn's request: a bad request is answered with its
// error, and a good one takes a run slot (see acquire).
func (s *Server) admit(w http.ResponseWriter, bad *badRequest) (release func(), ok bool) {
	if bad != nil {
		writeError(w, bad.status, "invalid_request_error", bad.param, bad.msg)
		return nil, false
	}
	return s.acquire(w)
}

// acquire takes a run slot, or answers 429 and reports false when all
// are taken.
func (s *Server) acquire(w http.ResponseWriter) (release func(), ok bool) {
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, true
	default:
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "", fmt.Sprintf("%d turns are running already (api.max_concurrent_runs); try again when one has finished", s.opt.MaxConcurrentRuns))
		return nil, false
	}
}

// writeJSON writes v as the JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// apiError is OpenAI's error object.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// writeError writes an error in OpenAI's shape, so clients show the
// message; param names the request field at fault, when one is.
func writeError(w http.ResponseWriter, status int, typ, param, msg string) {
	e := apiError{Message: msg, Type: typ}
	if param != "" {
		e.Param = &param
	}
	if status == http.StatusUnauthorized {
		c := "invalid_api_key"
		e.Code = &c
	}
	writeJSON(w, status, map[string]apiError{"error": e})
}
