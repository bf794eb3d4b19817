// Package telegramtest is a Telegram Bot API server for tests: it speaks
// the Bot API over HTTP on /bot{token}/{method} and /file/bot{token}/{path},
// keeps chats, messages and an update queue in memory, enforces the limits
// Telegram enforces (4096 UTF-16 units, 64-byte callback data, HTML
// parse_mode, the General topic, flood control) and lets a test inject
// what users write and read what the bot sent.
package telegramtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/clock"
)

// Server is a fake Bot API. Its methods are safe for concurrent use.
type Server struct {
	// URL is the API root to give the adapter as its base URL.
	URL string
	// Token is the one bot token the server accepts.
	Token string
	// Bot is the bot getMe returns.
	Bot User

	http *httptest.Server

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	clock   clock.Clock

	chats   map[int64]*chat
	updates []Update
	nextUpd int
	allowed []string      // allowed_updates; nil means every type but chat_member
	polling chan struct{} // closed to end the poll in progress
	// terminated says why the last poll was ended.
	terminated string
	webhook    string
	// hook pushes updates to the webhook while one is set.
	hook webhookPusher

	files    map[string]*file // by file_id
	paths    map[string]*file // by file_path
	nextFile int
	nextCBQ  int

	flood    map[int64]*flood
	calls    []string
	commands []Command
	actions  []Action
	answers  []Answer
	drafts   []Draft
}

type chat struct {
	info     Chat
	nextID   int
	messages map[int]*Message
	sent     []int // ids of the bot's messages, in order
}

type file struct {
	info File
	data []byte
}

// Options configure a Server; the zero value works.
type Options struct {
	// Token defaults to "123456:TEST-token".
	Token string
	// Bot defaults to id 1000, username "hermes_bot".
	Bot User
	// Clock dates messages, times flood waits and ends long polls; nil
	// means the wall clock.
	Clock clock.Clock
}

// New starts a server; Close stops it.
func New(o Options) *Server {
	s := &Server{
		Token:   o.Token,
		Bot:     o.Bot,
		clock:   clock.OrReal(o.Clock),
		changed: make(chan struct{}),
		chats:   map[int64]*chat{},
		nextUpd: 1,
		files:   map[string]*file{},
		paths:   map[string]*file{},
		flood:   map[int64]*flood{},
	}
	if s.Token == "" {
		s.Token = "123456:TEST-token"
	}
	if s.Bot.ID == 0 {
		s.Bot = User{ID: 1000, IsBot: true, FirstName: "Hermes", Username: "hermes_bot"}
	}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.http.URL
	return s
}

// Close shuts the server down, ending any poll in progress.
func (s *Server) Close() {
	s.stopPushing()
	s.http.CloseClientConnections()
	s.http.Close()
}

// apiError is a failed call: its status, description and parameters.
type apiError struct {
	code       int
	desc       string
	retryAfter int
	migrateTo  int64
}

func badRequest(format string, a ...any) *apiError {
	return &apiError{code: 400, desc: "Bad Request: " + fmt.Sprintf(format, a...)}
}

// serve routes /bot{token}/{method} and /file/bot{token}/{path}.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if rest, ok := strings.CutPrefix(path, "/file/bot"); ok {
		token, fpath, _ := strings.Cut(rest, "/")
		s.serveFile(w, token, fpath)
		return
	}
	rest, ok := strings.CutPrefix(path, "/bot")
	token, method, _ := strings.Cut(rest, "/")
	if !ok || token != s.Token {
		writeError(w, &apiError{code: 401, desc: "Unauthorized"})
		return
	}
	p, err := readParams(r)
	if err != nil {
		writeError(w, badRequest("%s", err))
		return
	}
	s.record(method)
	h := s.handler(method)
	if h == nil {
		writeError(w, &apiError{code: 404, desc: "Not Found"})
		return
	}
	result, aerr := h(r, p)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
}

type handler func(*http.Request, params) (any, *apiError)

// handler returns the method's handler; method names are case-insensitive
// in the Bot API.
func (s *Server) handler(method string) handler {
	switch strings.ToLower(method) {
	case "getme":
		return func(*http.Request, params) (any, *apiError) { return s.Bot, nil }
	case "getupdates":
		return s.getUpdates
	case "setwebhook":
		return s.setWebhook
	case "deletewebhook":
		return s.deleteWebhook
	case "getwebhookinfo":
		return s.getWebhookInfo
	case "sendmessage":
		return s.sendMessage
	case "editmessagetext":
		return s.editMessageText
	case "editmessagereplymarkup":
		return s.editMessageReplyMarkup
	case "sendmessagedraft":
		return s.sendMessageDraft
	case "answercallbackquery":
		return s.answerCallbackQuery
	case "sendchataction":
		return s.sendChatAction
	case "getfile":
		return s.getFile
	case "setmycommands":
		return s.setMyCommands
	case "senddocument":
		return s.sendFile("document")
	case "sendphoto":
		return s.sendFile("photo")
	}
	return nil
}

func writeError(w http.ResponseWriter, e *apiError) {
	body := map[string]any{"ok": false, "error_code": e.code, "description": e.desc}
	params := map[string]any{}
	if e.retryAfter > 0 {
		params["retry_after"] = e.retryAfter
	}
	if e.migrateTo != 0 {
		params["migrate_to_chat_id"] = e.migrateTo
	}
	if len(params) > 0 {
		body["parameters"] = params
	}
	writeJSON(w, e.code, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// record notes a call, for Calls, and wakes the waiters.
func (s *Server) record(method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, method)
	s.changedLocked()
}

// changedLocked wakes everything waiting for a change; s.mu is held.
func (s *Server) changedLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// chatLocked returns the chat with id, creating it as a private chat
// when it is new; s.mu is held.
func (s *Server) chatLocked(id int64) *chat {
	c := s.chats[id]
	if c == nil {
		typ := "private"
		if id < 0 {
			typ = "supergroup"
		}
		c = &chat{info: Chat{ID: id, Type: typ}, nextID: 1, messages: map[int]*Message{}}
		s.chats[id] = c
	}
	return c
}
