// Package llmtest is a scripted language-model server for tests: a real
// HTTP server (built on net/http/httptest) that speaks the three wire
// protocols hermes talks to models with, so that adapters, the agent loop
// and whole-binary tests run offline against the real bytes on the wire.
//
// The server answers
//
//	POST /v1/chat/completions  OpenAI Chat Completions
//	POST /v1/responses         OpenAI Responses
//	POST /v1/messages          Anthropic Messages
//	POST /v1/embeddings        OpenAI Embeddings, deterministic vectors (Embed)
//	GET  /v1/models            the model list, in OpenAI's shape, or in
//	                           Anthropic's when anthropic-version is sent
//
// each as one JSON body or as a Server-Sent Events stream, chosen by the
// request's "stream": true. An OpenAI client's base URL is URL()+"/v1", an
// Anthropic client's is URL().
//
// A test scripts the replies (Enqueue, or Handle for a computed fallback)
// and reads back what arrived (Requests), decoded into hermes's canonical
// messages so that assertions do not depend on the wire. Every received
// conversation is checked against the protocol rules hermes promises to
// keep (roles alternate, every tool call is answered exactly once, ids are
// unique, ...); the violations are recorded and, for a server made by New,
// fail the test when it ends.
//
// The checks, each reported with the request's index and the position of
// the offending message in the wire list:
//
//   - two user or two assistant messages in a row (on Anthropic, two turns
//     of the same role, tool results being user turns);
//   - a tool result that answers no call of the assistant message before
//     it, or answers a call a second time;
//   - a tool call left without a result before the next user or assistant
//     message (or the end of the conversation);
//   - a tool call id used twice, or missing;
//   - an empty messages or input list, a missing model, a body that is not
//     JSON or not the protocol's shape;
//   - what the vendor itself rejects: on Anthropic a missing
//     anthropic-version header or max_tokens, roles other than user and
//     assistant, empty content; on the OpenAI protocols tool arguments that
//     are not a JSON string, stream_options without stream;
//   - a request with the wrong method or to an unknown path, and one that
//     arrives when nothing is scripted.
package llmtest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// API names the wire protocol a request used.
type API string

// The protocols the server speaks.
const (
	ChatCompletions   API = "chat_completions"
	Responses         API = "responses"
	AnthropicMessages API = "anthropic_messages"
)

// DefaultModel is the model a reply names when neither the Reply nor the
// request names one, and the one model GET /v1/models lists by default.
const DefaultModel = "llmtest-model"

// maxBody bounds how much of a request body is read.
const maxBody = 32 << 20

// apiAt returns the protocol an endpoint speaks, and false for a path
// that is no endpoint. A switch rather than a map, so that nothing is
// built at start-up.
func apiAt(path string) (API, bool) {
	switch path {
	case "/v1/chat/completions":
		return ChatCompletions, true
	case "/v1/responses":
		return Responses, true
	case "/v1/messages":
		return AnthropicMessages, true
	}
	return "", false
}

// Server is a running scripted model server. Its methods are safe for
// concurrent use, so a test may drive it from parallel requests.
type Server struct {
	ts        *httptest.Server
	quit      chan struct{}
	closeOnce sync.Once

	mu         sync.Mutex
	queue      []Reply
	handler    func(Request) Reply
	requests   []Request
	violations []string
	allow      bool
	models     []string
	embedCalls int
	// served, when set, is called each time a request has been answered,
	// so that tests can tell that a handler returned.
	served func()
	// conns counts the TCP connections clients opened.
	conns int
}

// New starts a server whose lifetime is the test's: when the test ends the
// server is closed and, unless AllowViolations was called, every protocol
// violation it saw is reported with tb.Errorf.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := NewServer()
	tb.Cleanup(func() {
		s.Close()
		s.mu.Lock()
		v, allow := slices.Clone(s.violations), s.allow
		s.mu.Unlock()
		if len(v) > 0 && !allow {
			tb.Errorf("llmtest: %d protocol violation(s):\n\t%s", len(v), strings.Join(v, "\n\t"))
		}
	})
	return s
}

// NewServer starts a server that the caller closes with Close. It reports
// nothing by itself; read Violations. Most tests want New instead.
func NewServer() *Server {
	s := &Server{quit: make(chan struct{}), models: []string{DefaultModel}}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	s.ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	s.ts.Start()
	return s
}

// Connections returns how many TCP connections clients have opened to the
// server: a client that reuses its connection, as it should, opens one
// for any number of requests made one after another.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// URL returns the server's root, "http://127.0.0.1:port", which is an
// Anthropic base URL; OpenAI clients want URL()+"/v1".
func (s *Server) URL() string { return s.ts.URL }

// Client returns an HTTP client configured for the server.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// Close shuts the server down. Requests still waiting on a Delay or a
// StallAfter are released and their connections closed. Close may be
// called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.quit)
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

// Enqueue adds replies to the script. Each model request takes the next
// reply in order, whichever protocol it speaks.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle sets the function that answers requests once the queue is empty
// (Echo is one). It may be called from several requests at once. With
// neither a queued reply nor a handler, a request is answered with HTTP 500
// and recorded as the violation "unexpected request".
func (s *Server) Handle(h func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// Pending returns how many enqueued replies have not been served yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetModels sets the model ids GET /v1/models lists.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = slices.Clone(ids)
}

// Requests returns the model requests received so far, in arrival order;
// a request's Index is its position here. Requests still being answered
// are included. The requests share their messages and headers with the
// server's record, so treat them as read-only.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Violations returns every protocol violation seen so far, one sentence
// each, naming the request by its Index and the message by its position in
// the wire list ("request 1 (chat_completions): messages[3]: ...").
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.violations)
}

// AllowViolations stops New from failing the test over violations, for
// tests that send bad conversations on purpose and inspect Violations.
func (s *Server) AllowViolations() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allow = true
}
