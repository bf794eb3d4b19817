// Package feishutest is a Feishu Open API server for tests, with the
// other half of Feishu too: it serves the calls a bot makes
// (tenant_access_token, bot info, sending, replying to and patching
// messages) with Feishu's envelope, codes and limits (30 KB cards, 150 KB
// text, the JSON-string content, uuid dedupe, five calls a second per
// chat), and it posts events and card callbacks to the bot's URL as
// Feishu does: encrypted with the encrypt key, signed, and retried until
// they are answered 200.
package feishutest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// Options configure a Server; the zero value works.
type Options struct {
	// AppID, AppSecret, VerificationToken and EncryptKey are the app's;
	// they default to test values. An EncryptKey of "-" means none:
	// events are posted in plain JSON and unsigned.
	AppID, AppSecret, VerificationToken, EncryptKey string
	// Bot is the bot's identity; its OpenID defaults to ou_bot.
	Bot User
	// TokenLife is how long a tenant_access_token lasts; 0 means two
	// hours.
	TokenLife time.Duration
	// Clock ages tokens and paces chats; nil means the wall clock.
	Clock clock.Clock
}

// User is someone in the tenant.
type User struct {
	OpenID string
	Name   string
}

// Alice is the user events come from unless a test says otherwise.
func Alice() User { return User{OpenID: "ou_alice", Name: "Alice"} }

// Server is a fake Feishu. Its methods are safe for concurrent use.
type Server struct {
	// URL is the Open API root to give the adapter as its base URL.
	URL string
	// The app's credentials, as the server accepts them.
	AppID, AppSecret, VerificationToken, EncryptKey string
	Bot                                             User

	http   *httptest.Server
	clock  clock.Clock
	life   time.Duration
	client *http.Client

	mu      sync.Mutex
	changed chan struct{}
	closed  chan struct{}
	tokens  map[string]time.Time // token → expiry
	issued  int
	calls   []string

	messages map[string]*Message
	order    []string
	nextMsg  int
	uuids    map[string]string // uuid → message id

	faults map[string]*faults // by chat id
	posts  poster
	ws     wsState
}

// New starts a server; Close stops it.
func New(o Options) *Server {
	s := &Server{
		AppID: o.AppID, AppSecret: o.AppSecret, VerificationToken: o.VerificationToken, EncryptKey: o.EncryptKey,
		Bot:      o.Bot,
		clock:    clock.OrReal(o.Clock),
		life:     o.TokenLife,
		client:   &http.Client{Timeout: 10 * time.Second},
		changed:  make(chan struct{}),
		closed:   make(chan struct{}),
		tokens:   map[string]time.Time{},
		messages: map[string]*Message{},
		uuids:    map[string]string{},
		faults:   map[string]*faults{},
	}
	if s.AppID == "" {
		s.AppID = "cli_test0123456789"
	}
	if s.AppSecret == "" {
		s.AppSecret = "app-secret-0123456789"
	}
	if s.VerificationToken == "" {
		s.VerificationToken = "verify-token-0123"
	}
	switch s.EncryptKey {
	case "":
		s.EncryptKey = "encrypt-key-0123"
	case "-":
		s.EncryptKey = ""
	}
	if s.Bot.OpenID == "" {
		s.Bot = User{OpenID: "ou_bot", Name: "hermes"}
	}
	if s.life <= 0 {
		s.life = 2 * time.Hour
	}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	return s
}

// Close stops posting events and shuts the server down.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
	s.mu.Unlock()
	s.posts.wg.Wait()
	s.Disconnect()
	s.http.CloseClientConnections()
	s.http.Close()
}

// apiError is a failed call: the HTTP status, Feishu's code and msg, and
// x-ogw-ratelimit-reset when set.
type apiError struct {
	status, code int
	msg          string
	reset        int
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.record(r.Method + " " + r.URL.Path)
	path := r.URL.Path
	switch {
	case path == "/open-apis/auth/v3/tenant_access_token/internal" && r.Method == http.MethodPost:
		s.issueToken(w, r)
		return
	case path == "/callback/ws/endpoint" && r.Method == http.MethodPost:
		s.endpoint(w, r)
		return
	case path == "/ws":
		s.accept(w, r)
		return
	}
	if e := s.checkToken(r); e != nil {
		writeError(w, e)
		return
	}
	var data any
	var e *apiError
	switch {
	case path == "/open-apis/bot/v3/info" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "ok",
			"bot": map[string]any{"open_id": s.Bot.OpenID, "app_name": s.Bot.Name, "activate_status": 2}})
		return
	case path == "/open-apis/im/v1/messages" && r.Method == http.MethodPost:
		data, e = s.create(r)
	case strings.HasPrefix(path, "/open-apis/im/v1/messages/") && strings.HasSuffix(path, "/reply") && r.Method == http.MethodPost:
		data, e = s.reply(r, strings.TrimSuffix(strings.TrimPrefix(path, "/open-apis/im/v1/messages/"), "/reply"))
	case strings.HasPrefix(path, "/open-apis/im/v1/messages/") && r.Method == http.MethodPatch:
		data, e = s.patch(r, strings.TrimPrefix(path, "/open-apis/im/v1/messages/"))
	default:
		e = &apiError{status: http.StatusNotFound, code: 404, msg: "404 page not found"}
	}
	if e != nil {
		writeError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": data})
}

// issueToken answers tenant_access_token/internal.
func (s *Server) issueToken(w http.ResponseWriter, r *http.Request) {
	var in struct {
		AppID     string `json:"app_id"`
		AppSecret string `json:"app_secret"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.AppID != s.AppID || in.AppSecret != s.AppSecret {
		writeJSON(w, http.StatusOK, map[string]any{"code": 10014, "msg": "app secret invalid"})
		return
	}
	s.mu.Lock()
	s.issued++
	tok := fmt.Sprintf("t-g1044%06d", s.issued)
	s.tokens[tok] = s.clock.Now().Add(s.life)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "ok", "tenant_access_token": tok, "expire": int(s.life / time.Second)})
}

// checkToken refuses a call without a live token, as Feishu does, with
// 99991663.
func (s *Server) checkToken(r *http.Request) *apiError {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		return &apiError{status: http.StatusBadRequest, code: 99991661, msg: "Missing access token for authorization."}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.tokens[tok]
	if !ok || !s.clock.Now().Before(exp) {
		return &apiError{status: http.StatusBadRequest, code: 99991663, msg: "Invalid access token for authorization. Please make a request with token attached."}
	}
	return nil
}

// ExpireTokens makes every token issued so far invalid, as when Feishu
// revokes them early.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// TokensIssued is how many tenant_access_tokens were handed out.
func (s *Server) TokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issued
}

// Calls lists the calls made, as "METHOD /path", in order.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// Wait returns once cond, checked after every change, holds, or ctx's
// error when it ends first.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *Server) record(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
	s.changedLocked()
}

func (s *Server) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func writeError(w http.ResponseWriter, e *apiError) {
	if e.reset > 0 {
		w.Header().Set("x-ogw-ratelimit-reset", fmt.Sprint(e.reset))
	}
	writeJSON(w, e.status, map[string]any{"code": e.code, "msg": e.msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
