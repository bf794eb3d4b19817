// Package dingtalktest is a DingTalk open API server for tests: the
// access token, the Stream gateway (connections/open issuing one-time
// tickets, and the WebSocket that pushes robot messages and system
// frames and records the acks), the robot API sends and the
// sessionWebhooks, with DingTalk's limits (20000 bytes of Markdown, 20
// messages a minute per robot, errors as errcode on HTTP 200) and fault
// knobs; and a client playing DingTalk's signed HTTP callbacks.
package dingtalktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/hermes-go/hermes/internal/clock"
)

// Options configure a Server; the zero value works.
type Options struct {
	// ClientID and ClientSecret are the app's credentials the server
	// accepts; they default to "dingtestapp" and "test-client-secret".
	ClientID, ClientSecret string
	// RobotCode is the robot the robot API accepts; it defaults to
	// ClientID.
	RobotCode string
	// Clock dates messages and times tokens, sessions, the rate limit
	// and redeliveries; nil means the wall clock.
	Clock clock.Clock
	// RedeliverAfter, when set, delivers a robot message again, in a new
	// frame, when it was not acked with 200 within that time, as
	// DingTalk does (after some 15 to 60 s); up to three times.
	RedeliverAfter time.Duration
}

// Sent is a message the robot sent.
type Sent struct {
	// Chat is the user id of a direct chat or the conversation id of a
	// group.
	Chat string
	// Via is "session" for a sessionWebhook, "api" for the robot API.
	Via   string
	Title string
	Text  string
	Time  time.Time
}

// Server is a fake DingTalk. Its methods are safe for concurrent use.
type Server struct {
	// URL is the open API root to give the adapter as its base URL.
	URL                    string
	ClientID, ClientSecret string
	RobotCode              string

	http           *httptest.Server
	clock          clock.Clock
	redeliverAfter time.Duration

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	tokens  map[string]time.Time
	tickets map[string]bool
	// conn is the Stream connection, nil when none is up.
	conn     *websocket.Conn
	connects int
	opens    int
	acks     []Ack
	sessions map[string]session
	sent     []Sent
	// sends are the times of the robot's sends in the last minute.
	sends []time.Time
	// limitNext answers that many sends with errcode 130101.
	limitNext   int
	refused     int
	redelivered int
	nextID      int
}

type session struct {
	chat    string
	expires time.Time
}

// New starts a Server on 127.0.0.1.
func New(o Options) *Server {
	s := &Server{
		ClientID: o.ClientID, ClientSecret: o.ClientSecret, RobotCode: o.RobotCode,
		clock: clock.OrReal(o.Clock), redeliverAfter: o.RedeliverAfter,
		changed: make(chan struct{}),
		tokens:  map[string]time.Time{}, tickets: map[string]bool{}, sessions: map[string]session{},
	}
	if s.ClientID == "" {
		s.ClientID = "dingtestapp"
	}
	if s.ClientSecret == "" {
		s.ClientSecret = "test-client-secret"
	}
	if s.RobotCode == "" {
		s.RobotCode = s.ClientID
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1.0/oauth2/accessToken", s.accessToken)
	mux.HandleFunc("POST /v1.0/gateway/connections/open", s.open)
	mux.HandleFunc("GET /gateway/ws", s.websocket)
	mux.HandleFunc("POST /v1.0/robot/oToMessages/batchSend", s.batchSend)
	mux.HandleFunc("POST /v1.0/robot/groupMessages/send", s.groupSend)
	mux.HandleFunc("POST /robot/sendBySession", s.sendBySession)
	s.http = httptest.NewServer(mux)
	s.URL = s.http.URL
	return s
}

// Close drops the Stream connection and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	if s.conn != nil {
		s.conn.CloseNow()
	}
	s.mu.Unlock()
	s.http.Close()
}

// changedLocked wakes whoever Waits; s.mu is held.
func (s *Server) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Wait blocks until cond holds, checking it after every change, or ctx
// ends.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("dingtalktest: waiting: %w", ctx.Err())
		}
	}
}

// Sent returns what the robot sent to chat, in order.
func (s *Server) Sent(chat string) []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Sent
	for _, m := range s.sent {
		if m.Chat == chat {
			out = append(out, m)
		}
	}
	return out
}

// Refused is how many sends were answered as too fast.
func (s *Server) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// RateLimitNext answers the next n sends with errcode 130101 ("send too
// fast"), on HTTP 200 as DingTalk does.
func (s *Server) RateLimitNext(n int) {
	s.mu.Lock()
	s.limitNext = n
	s.mu.Unlock()
}

func randomID(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func readJSON(r *http.Request, v any) error {
	return json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// apiError answers as the open API does: a status and {code, message}.
func apiError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]string{"code": code, "message": msg, "requestid": randomID("req")})
}

// errcode answers as the robot endpoints do: HTTP 200 and an errcode.
func errcode(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, http.StatusOK, map[string]any{"errcode": code, "errmsg": msg})
}

func (s *Server) accessToken(w http.ResponseWriter, r *http.Request) {
	var in struct{ AppKey, AppSecret string }
	if err := readJSON(r, &in); err != nil {
		apiError(w, 400, "MissingParameter", "the body is not JSON")
		return
	}
	if in.AppKey != s.ClientID || in.AppSecret != s.ClientSecret {
		apiError(w, 400, "invalidClientIdOrSecret", "无效的clientId或者clientSecret")
		return
	}
	tok := randomID("tok")
	s.mu.Lock()
	s.tokens[tok] = s.clock.Now().Add(7200 * time.Second)
	s.mu.Unlock()
	writeJSON(w, 200, map[string]any{"accessToken": tok, "expireIn": 7200})
}

// authorized checks the access token header of a robot API call.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	exp, ok := s.tokens[r.Header.Get("x-acs-dingtalk-access-token")]
	s.mu.Unlock()
	if !ok || !s.clock.Now().Before(exp) {
		apiError(w, 401, "InvalidAuthentication", "不合法的access_token")
		return false
	}
	return true
}

// MaxText is the most bytes a message's text may hold.
const MaxText = 20000

// PerMinute is how many messages the robot may send in a minute.
const PerMinute = 20

// record checks a send against the limits and records it; false means
// it was answered with an error.
func (s *Server) record(w http.ResponseWriter, m Sent) bool {
	if n := len(m.Text); n > MaxText {
		errcode(w, 460101, fmt.Sprintf("message too long, exceed %d bytes (got %d)", MaxText, n))
		return false
	}
	if strings.TrimSpace(m.Title) == "" || strings.TrimSpace(m.Text) == "" {
		errcode(w, 400001, "markdown title and text are both required")
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	for len(s.sends) > 0 && now.Sub(s.sends[0]) >= time.Minute {
		s.sends = s.sends[1:]
	}
	if s.limitNext > 0 || len(s.sends) >= PerMinute {
		if s.limitNext > 0 {
			s.limitNext--
		}
		s.refused++
		s.changedLocked()
		errcode(w, 130101, "send too fast, exceed 20 times per minute")
		return false
	}
	s.sends = append(s.sends, now)
	m.Time = now
	s.sent = append(s.sent, m)
	s.changedLocked()
	return true
}
