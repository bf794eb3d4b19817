// Package slacktest is a Slack server for tests, built from Slack's
// documented protocol: the Web API methods hermes calls (auth.test,
// apps.connections.open, chat.postMessage, chat.update,
// chat.postEphemeral) with Slack's limits and its errors in 200 answers,
// a Socket Mode WebSocket that says hello, pushes envelopes and keeps
// every unacknowledged one for the next connection, and an Events API
// sender that signs its posts as Slack does. Fault knobs answer with rate
// limits, drop or refresh connections and redeliver events.
package slacktest

import (
	"context"
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

// Server is a fake Slack. Its methods are safe for concurrent use.
type Server struct {
	// URL is the Web API root to give the adapter as its base URL.
	URL string
	// BotToken, AppToken and SigningSecret are the credentials the
	// server accepts and signs with.
	BotToken, AppToken, SigningSecret string
	// BotUser and BotID are the bot's user id and bot id (auth.test).
	BotUser, BotID string

	http  *httptest.Server
	clock clock.Clock

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change

	nextTS    int
	nextID    int
	channels  map[string][]*Message
	ephemeral []Ephemeral
	calls     []Call

	// Socket Mode.
	tickets  map[string]bool
	conns    []*websocket.Conn
	opened   int
	pending  []*envelope // sent or waiting, not acknowledged
	acked    []string
	history  []*envelope // every envelope, for Redeliver
	ignoreAk bool

	files map[string][]byte // by path

	// Events API.
	eventsURL string
	posts     []Post

	// Faults.
	limits map[string]time.Duration // channel -> Retry-After of its next call
	pace   time.Duration
	last   map[string]time.Time // channel -> its last chat.postMessage
	fail   map[string]string    // method -> error of its next call
}

// Options configure a Server; the zero value works.
type Options struct {
	// Clock dates messages and signs posts; nil means the wall clock.
	Clock clock.Clock
	// Pace, when set, is the least time between two chat.postMessage
	// calls to one channel: a quicker one is answered 429 with the
	// Retry-After left, as Slack's about one message a second per
	// channel is.
	Pace time.Duration
}

// New starts a server; Close stops it.
func New(o Options) *Server {
	s := &Server{
		BotToken:      "xoxb-1111-2222-testbottoken",
		AppToken:      "xapp-1-A0001-3333-testapptoken",
		SigningSecret: "8f742231b10e8888abcd99yyyzzz85a5",
		BotUser:       "UHERMES",
		BotID:         "BHERMES",
		clock:         clock.OrReal(o.Clock),
		changed:       make(chan struct{}),
		channels:      map[string][]*Message{},
		tickets:       map[string]bool{},
		files:         map[string][]byte{},
		limits:        map[string]time.Duration{},
		fail:          map[string]string{},
		pace:          o.Pace,
		last:          map[string]time.Time{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("/link/", s.serveSocket)
	mux.HandleFunc("/files/", s.serveFile)
	s.http = httptest.NewServer(mux)
	s.URL = s.http.URL + "/api"
	return s
}

// Close closes every socket and shuts the server down.
func (s *Server) Close() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for _, c := range conns {
		c.CloseNow()
	}
	s.http.CloseClientConnections()
	s.http.Close()
}

// Message is a message in a channel: someone's, or the bot's.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string
	User     string
	// Text is the text as posted (mrkdwn, escaped).
	Text   string
	Blocks []Block
	// Edits counts the chat.update calls that changed it.
	Edits int
	// Params are the other fields of the chat.postMessage call.
	Params map[string]any
}

// Block is a Block Kit block as posted.
type Block struct {
	Type     string    `json:"type"`
	BlockID  string    `json:"block_id,omitempty"`
	Text     *Text     `json:"text,omitempty"`
	Elements []Element `json:"elements,omitempty"`
}

// Text is a text object.
type Text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Element is an element of an actions block (a button).
type Element struct {
	Type     string `json:"type"`
	Text     *Text  `json:"text,omitempty"`
	ActionID string `json:"action_id"`
	Value    string `json:"value"`
}

// Ephemeral is a chat.postEphemeral message.
type Ephemeral struct {
	Channel, User, Text, ThreadTS string
}

// Call is one Web API call, answered.
type Call struct {
	Time    time.Time
	Method  string
	Channel string
	// Error is Slack's error string, "ratelimited" for a 429, "" for ok.
	Error string
}

// Post is one post to the events URL and its answer.
type Post struct {
	Body   string
	Status int
	Retry  int
}

func (s *Server) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Wait waits until cond holds, checking it after every change.
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
			return fmt.Errorf("slacktest: waiting: %w", ctx.Err())
		}
	}
}

// tsLocked returns a new message ts, Slack's "seconds.micros" form.
func (s *Server) tsLocked() string {
	s.nextTS++
	return fmt.Sprintf("%d.%06d", s.clock.Now().Unix(), s.nextTS)
}

// Messages returns the messages of channel, in order.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.channels[channel] {
		out = append(out, *m)
	}
	return out
}

// Sent returns the bot's messages in channel, in order.
func (s *Server) Sent(channel string) []Message {
	var out []Message
	for _, m := range s.Messages(channel) {
		if m.User == s.BotUser {
			out = append(out, m)
		}
	}
	return out
}

// Ephemerals returns the chat.postEphemeral messages.
func (s *Server) Ephemerals() []Ephemeral {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ephemeral(nil), s.ephemeral...)
}

// Calls returns the Web API calls of method ("" for all), in order.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// RateLimit makes the next chat.postMessage or chat.update to channel
// answer 429 with Retry-After.
func (s *Server) RateLimit(channel string, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits[channel] = retryAfter
}

// FailNext makes the next call of method answer {"ok":false,"error":code}
// with status 200, as Slack does.
func (s *Server) FailNext(method, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[method] = code
}

// find returns the message ts of channel; s.mu is held.
func (s *Server) findLocked(channel, ts string) *Message {
	for _, m := range s.channels[channel] {
		if m.TS == ts {
			return m
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(v)
}

// bearer is the token of a request.
func bearer(r *http.Request) string {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer")
	return strings.TrimSpace(tok)
}
