// Package discordtest is a Discord server for tests: the REST API under
// /api/v10 (gateway/bot, channel messages and their edits, typing,
// interaction callbacks and follow-ups) and the Gateway WebSocket (Hello,
// Identify, READY, heartbeats and their ACKs, sequence numbers, Resume
// with replay, Reconnect, Invalid Session and close codes). It keeps
// channels and messages in memory, enforces Discord's limits (2000 code
// points of content, custom_id of 100, 5 rows of 5 buttons), answers with
// rate-limit headers and programmable 429s, and lets a test write as a
// user, press buttons and read what the bot sent.
package discordtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/clock"
)

// Server is a fake Discord. Its methods are safe for concurrent use.
type Server struct {
	// URL is the REST root (…/api/v10) to give the adapter as base_url.
	URL string
	// GatewayURL is the Gateway's address, which GET /gateway/bot gives.
	GatewayURL string
	// Token is the one bot token the server accepts.
	Token string
	// Bot is the bot's user; AppID its application's id.
	Bot   User
	AppID string

	http  *httptest.Server
	clock clock.Clock

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	nextID  int64

	channels  map[string]*channel
	requests  []string
	callbacks []Callback
	followups []Followup
	presses   map[string]string // interaction id → token
	limits    map[string]*limit // by channel id
	global    []float64         // global 429s to answer next, retry_after each

	gw gatewayState
}

type channel struct {
	guild    string
	messages map[string]*Message
	sent     []string // ids of the bot's messages, in order
}

// Options configure a Server; the zero value works.
type Options struct {
	// Token defaults to "MTIz.Gh5x.test-token".
	Token string
	// Bot defaults to id 1000, username "hermes".
	Bot User
	// HeartbeatMillis is the heartbeat_interval Hello gives; 0 means
	// 41250, Discord's usual.
	HeartbeatMillis int
	// Clock times rate-limit windows; nil means the wall clock.
	Clock clock.Clock
}

// New starts a server; Close stops it.
func New(o Options) *Server {
	s := &Server{
		Token:    o.Token,
		Bot:      o.Bot,
		AppID:    "900",
		clock:    clock.OrReal(o.Clock),
		changed:  make(chan struct{}),
		nextID:   1_100_000_000_000_000_000,
		channels: map[string]*channel{},
		presses:  map[string]string{},
		limits:   map[string]*limit{},
	}
	if s.Token == "" {
		s.Token = "MTIz.Gh5x.test-token"
	}
	if s.Bot.ID == "" {
		s.Bot = User{ID: "1000", Username: "hermes", Bot: true}
	}
	s.gw.heartbeat = o.HeartbeatMillis
	if s.gw.heartbeat == 0 {
		s.gw.heartbeat = 41250
	}
	s.gw.sessions = map[string]*gwSession{}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL + "/api/v10"
	s.GatewayURL = "ws" + strings.TrimPrefix(s.http.URL, "http") + "/gateway"
	return s
}

// Close shuts the server down, dropping the Gateway connection.
func (s *Server) Close() {
	s.Drop()
	s.http.CloseClientConnections()
	s.http.Close()
}

// apiError is a failed request: its status and Discord's error body.
type apiError struct {
	status  int
	code    int
	message string
}

func badRequest(format string, a ...any) *apiError {
	return &apiError{status: 400, code: 50035, message: "Invalid Form Body: " + fmt.Sprintf(format, a...)}
}

// serve routes the REST API and the Gateway.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/gateway" || r.URL.Path == "/resume" {
		s.serveGateway(w, r)
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/api/v10/")
	if !ok {
		writeError(w, &apiError{status: 404, message: "404: Not Found"})
		return
	}
	parts := strings.Split(path, "/")
	route := r.Method + " " + routeOf(parts)
	s.record(route)
	interaction := parts[0] == "interactions" || parts[0] == "webhooks"
	if !interaction && r.Header.Get("Authorization") != "Bot "+s.Token {
		writeError(w, &apiError{status: 401, message: "401: Unauthorized"})
		return
	}
	if !interaction {
		if retry, ok := s.takeGlobal(); ok {
			writeLimited(w, retry, true, "")
			return
		}
	}
	var (
		result any
		err    *apiError
		status = http.StatusOK
	)
	switch {
	case route == "GET /gateway/bot":
		result = map[string]any{"url": s.GatewayURL, "shards": 1, "session_start_limit": s.startLimit()}
	case len(parts) == 3 && parts[0] == "channels" && parts[2] == "messages" && r.Method == http.MethodPost:
		if !s.spend(w, parts[1]) {
			return
		}
		result, err = s.createMessage(r, parts[1])
	case len(parts) == 4 && parts[0] == "channels" && parts[2] == "messages" && r.Method == http.MethodPatch:
		if !s.spend(w, parts[1]) {
			return
		}
		result, err = s.editMessage(r, parts[1], parts[3])
	case len(parts) == 3 && parts[0] == "channels" && parts[2] == "typing" && r.Method == http.MethodPost:
		status = http.StatusNoContent
	case len(parts) == 4 && parts[0] == "interactions" && parts[3] == "callback" && r.Method == http.MethodPost:
		status, err = http.StatusNoContent, s.callback(r, parts[1], parts[2])
	case len(parts) == 3 && parts[0] == "webhooks" && r.Method == http.MethodPost:
		result, err = s.followup(r, parts[1], parts[2])
	default:
		err = &apiError{status: 404, message: "404: Not Found"}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, result)
}

// routeOf names a path by its shape, ids and tokens left out, for
// Requests.
func routeOf(parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		switch {
		case i > 0 && parts[0] == "interactions" && i == 2:
			out[i] = "{token}"
		case i > 0 && parts[0] == "webhooks" && i == 2:
			out[i] = "{token}"
		case p != "" && strings.Trim(p, "0123456789") == "":
			out[i] = "{id}"
		default:
			out[i] = p
		}
	}
	return "/" + strings.Join(out, "/")
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, map[string]any{"code": e.code, "message": e.message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// record notes a request, for Requests, and wakes the waiters.
func (s *Server) record(route string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, route)
	s.changedLocked()
}

// changedLocked wakes everything waiting for a change; s.mu is held.
func (s *Server) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// newIDLocked returns a fresh snowflake; s.mu is held.
func (s *Server) newIDLocked() string {
	s.nextID++
	return strconv.FormatInt(s.nextID, 10)
}

// channelLocked returns the channel, creating it (in guild, "" for a
// direct message) when it is new; s.mu is held.
func (s *Server) channelLocked(id, guild string) *channel {
	c := s.channels[id]
	if c == nil {
		c = &channel{guild: guild, messages: map[string]*Message{}}
		s.channels[id] = c
	}
	return c
}
