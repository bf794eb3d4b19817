// Package wecomtest is a WeCom server for tests, built from WeCom's
// documented protocol: the API (gettoken, message/send with its byte
// limit and errcodes in 200 answers, which a test can inject), a client
// that plays WeCom's callbacks to a self-built app (signed, encrypted
// XML, retried after five seconds without an answer), and the AI bot's
// long connection.
package wecomtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomcrypt"
)

// MaxText is the most UTF-8 bytes a text message/send takes. WeCom cuts
// longer text; this server refuses it (errcode 45002), so a test sees it.
const MaxText = 2048

// Options configure a Server; the zero value works.
type Options struct {
	// CorpID, AgentID, Secret, Token and EncodingAESKey are the app's
	// settings; each has a default.
	CorpID         string
	AgentID        int64
	Secret         string
	Token          string
	EncodingAESKey string
	// Clock ages access tokens and stamps callbacks; nil means the wall
	// clock.
	Clock clock.Clock
	// RetryAfter is how long a callback waits for its answer before it
	// is posted again; 0 means WeCom's five seconds.
	RetryAfter time.Duration
}

// Server is a fake WeCom. Its methods are safe for concurrent use.
type Server struct {
	// URL is the API root to give the adapter as its base URL.
	URL string
	// The app's settings, to give the adapter.
	CorpID         string
	AgentID        int64
	Secret         string
	Token          string
	EncodingAESKey string

	http       *httptest.Server
	crypt      *wecomcrypt.Crypter
	clock      clock.Clock
	retryAfter time.Duration

	// changes wakes Wait.
	changes

	mu      sync.Mutex
	tokens  map[string]time.Time
	nextTok int
	sent    []Message
	fails   []int
	denyIP  bool
	calls   map[string]int
	nextMsg int64
	// callback is where WeCom's callbacks go, and posted what it posted
	// by MsgId, to post again.
	callback string
	posted   map[string]Incoming
}

// Message is one message the app sent.
type Message struct {
	ToUser  string
	AgentID int64
	MsgType string
	Content string
	MsgID   string
}

// New starts a Server on 127.0.0.1.
func New(o Options) *Server {
	s := &Server{CorpID: o.CorpID, AgentID: o.AgentID, Secret: o.Secret, Token: o.Token, EncodingAESKey: o.EncodingAESKey,
		clock: clock.OrReal(o.Clock), tokens: map[string]time.Time{},
		calls: map[string]int{}, posted: map[string]Incoming{}, retryAfter: o.RetryAfter}
	if s.retryAfter <= 0 {
		s.retryAfter = RetryAfter
	}
	if s.CorpID == "" {
		s.CorpID = "ww5823bf96d3bd56c7"
	}
	if s.AgentID == 0 {
		s.AgentID = 1000002
	}
	if s.Secret == "" {
		s.Secret = "app-secret-0123456789abcdefghijklmnopqrstu"
	}
	if s.Token == "" {
		s.Token = "QDG6eK"
	}
	if s.EncodingAESKey == "" {
		s.EncodingAESKey = "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C"
	}
	c, err := wecomcrypt.New(s.Token, s.EncodingAESKey, s.CorpID)
	if err != nil {
		panic("wecomtest: " + err.Error())
	}
	s.crypt = c
	mux := http.NewServeMux()
	mux.HandleFunc("GET /cgi-bin/gettoken", s.getToken)
	mux.HandleFunc("POST /cgi-bin/message/send", s.messageSend)
	mux.HandleFunc("GET /cgi-bin/agent/get", s.agentGet)
	s.http = httptest.NewServer(mux)
	s.URL = s.http.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.http.Close() }

// Sent returns the messages sent to user, in order.
func (s *Server) Sent(user string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.sent {
		if m.ToUser == user {
			out = append(out, m)
		}
	}
	return out
}

// CallCount returns how many calls path had ("/cgi-bin/gettoken").
func (s *Server) CallCount(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[path]
}

// FailNext makes the next message/send calls answer these errcodes, one
// each, in a 200 as WeCom does (45009 rate limit, -1 busy, 60020 IP not
// trusted).
func (s *Server) FailNext(codes ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails = append(s.fails, codes...)
}

// ExpireTokens makes every access token issued so far expired (42001).
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.tokens {
		s.tokens[t] = time.Time{}
	}
}

// DenyIP makes every call answer 60020, as WeCom does for a caller whose
// IP is not among the app's trusted IPs.
func (s *Server) DenyIP(deny bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denyIP = deny
}

func reply(w http.ResponseWriter, code int, msg string, extra map[string]any) {
	out := map[string]any{"errcode": code, "errmsg": msg}
	for k, v := range extra {
		out[k] = v
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(out)
}

func (s *Server) getToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[r.URL.Path]++
	s.touch()
	q := r.URL.Query()
	switch {
	case s.denyIP:
		reply(w, 60020, "not allow to access from your ip", nil)
	case q.Get("corpid") != s.CorpID:
		reply(w, 40013, "invalid corpid", nil)
	case q.Get("corpsecret") != s.Secret:
		reply(w, 40001, "invalid credential", nil)
	default:
		s.nextTok++
		tok := fmt.Sprintf("tok-%d-%s", s.nextTok, s.CorpID)
		s.tokens[tok] = s.clock.Now().Add(7200 * time.Second)
		reply(w, 0, "ok", map[string]any{"access_token": tok, "expires_in": 7200})
	}
}

func (s *Server) messageSend(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ToUser  string `json:"touser"`
		MsgType string `json:"msgtype"`
		AgentID int64  `json:"agentid"`
		Text    *struct {
			Content string `json:"content"`
		} `json:"text"`
	}
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[r.URL.Path]++
	s.touch()
	tok := r.URL.Query().Get("access_token")
	exp, known := s.tokens[tok]
	switch {
	case s.denyIP:
		reply(w, 60020, "not allow to access from your ip", nil)
	case tok == "":
		reply(w, 41001, "access_token missing", nil)
	case !known:
		reply(w, 40014, "invalid access_token", nil)
	case !s.clock.Now().Before(exp):
		reply(w, 42001, "access_token expired", nil)
	case err != nil:
		reply(w, 47001, "data format error", nil)
	case len(s.fails) > 0:
		code := s.fails[0]
		s.fails = s.fails[1:]
		reply(w, code, fmt.Sprintf("injected errcode %d", code), nil)
	case body.AgentID != s.AgentID:
		reply(w, 40056, "invalid agentid", nil)
	case body.MsgType != "text" || body.Text == nil || body.Text.Content == "":
		reply(w, 44004, "empty content", nil)
	case len(body.Text.Content) > MaxText:
		reply(w, 45002, fmt.Sprintf("content size out of limit: %d bytes, at most %d", len(body.Text.Content), MaxText), nil)
	case body.ToUser == "":
		reply(w, 40031, "invalid user list", nil)
	default:
		s.nextMsg++
		id := fmt.Sprintf("msg%d", s.nextMsg)
		s.sent = append(s.sent, Message{ToUser: body.ToUser, AgentID: body.AgentID, MsgType: body.MsgType, Content: body.Text.Content, MsgID: id})
		s.touch()
		reply(w, 0, "ok", map[string]any{"msgid": id})
	}
}

// agentGet answers agent/get, which hermes gateway status calls.
func (s *Server) agentGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[r.URL.Path]++
	s.touch()
	q := r.URL.Query()
	exp, known := s.tokens[q.Get("access_token")]
	switch {
	case s.denyIP:
		reply(w, 60020, "not allow to access from your ip", nil)
	case !known:
		reply(w, 40014, "invalid access_token", nil)
	case !s.clock.Now().Before(exp):
		reply(w, 42001, "access_token expired", nil)
	case q.Get("agentid") != strconv.FormatInt(s.AgentID, 10):
		reply(w, 40056, "invalid agentid", nil)
	default:
		reply(w, 0, "ok", map[string]any{"agentid": s.AgentID, "name": "hermes"})
	}
}
