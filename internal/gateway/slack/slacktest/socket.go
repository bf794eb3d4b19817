package slacktest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/coder/websocket"
)

// envelope is one Socket Mode envelope.
type envelope struct {
	ID      string          `json:"envelope_id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	// AcceptsResponsePayload is false: hermes answers through the Web
	// API.
	AcceptsResponsePayload bool   `json:"accepts_response_payload"`
	RetryAttempt           int    `json:"retry_attempt"`
	RetryReason            string `json:"retry_reason"`
	sent                   bool
}

// ticket returns a new single-use Socket Mode URL.
func (s *Server) ticket() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	t := fmt.Sprintf("ticket-%d", s.nextID)
	s.tickets[t] = true
	return "ws" + strings.TrimPrefix(s.http.URL, "http") + "/link/?ticket=" + t + "&app_id=A0001"
}

// serveSocket is a Socket Mode connection: its ticket is used up, it
// says hello, sends every envelope not yet acknowledged (again, with
// retry_attempt counted, when an earlier connection had it) and records
// the acknowledgements.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	t := r.URL.Query().Get("ticket")
	s.mu.Lock()
	ok := s.tickets[t]
	delete(s.tickets, t)
	s.mu.Unlock()
	if !ok {
		http.Error(w, "invalid or used ticket", http.StatusUnauthorized)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ctx := r.Context()
	hello, _ := json.Marshal(map[string]any{"type": "hello", "num_connections": 1, "connection_info": map[string]string{"app_id": "A0001"}})
	if c.Write(ctx, websocket.MessageText, hello) != nil {
		c.CloseNow()
		return
	}
	s.mu.Lock()
	s.conns = append(s.conns, c)
	s.opened++
	var replay []*envelope
	for _, e := range s.pending {
		if e.sent {
			e.RetryAttempt++
			e.RetryReason = "timeout"
		}
		e.sent = true
		replay = append(replay, e)
	}
	s.changedLocked()
	s.mu.Unlock()
	for _, e := range replay {
		s.write(ctx, c, e)
	}
	defer func() {
		s.mu.Lock()
		s.conns = slices.DeleteFunc(s.conns, func(x *websocket.Conn) bool { return x == c })
		s.changedLocked()
		s.mu.Unlock()
		c.CloseNow()
	}()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string `json:"envelope_id"`
		}
		if json.Unmarshal(data, &ack) != nil || ack.EnvelopeID == "" {
			continue
		}
		s.mu.Lock()
		if !s.ignoreAk {
			s.pending = slices.DeleteFunc(s.pending, func(e *envelope) bool { return e.ID == ack.EnvelopeID })
			s.acked = append(s.acked, ack.EnvelopeID)
		}
		s.changedLocked()
		s.mu.Unlock()
	}
}

func (s *Server) write(ctx context.Context, c *websocket.Conn, v any) {
	data, _ := json.Marshal(v)
	c.Write(ctx, websocket.MessageText, data)
}

// push queues an envelope and sends it on the newest connection, if
// there is one; it stays pending until acknowledged.
func (s *Server) push(typ string, payload []byte, retry int, reason string) string {
	s.mu.Lock()
	s.nextID++
	e := &envelope{ID: fmt.Sprintf("env-%d", s.nextID), Type: typ, Payload: payload, RetryAttempt: retry, RetryReason: reason}
	s.pending = append(s.pending, e)
	s.history = append(s.history, e)
	var c *websocket.Conn
	if n := len(s.conns); n > 0 {
		c = s.conns[n-1]
		e.sent = true
	}
	s.changedLocked()
	s.mu.Unlock()
	if c != nil {
		s.write(context.Background(), c, e)
	}
	return e.ID
}

// Connections returns how many Socket Mode connections were opened, and
// how many are open.
func (s *Server) Connections() (opened, open int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened, len(s.conns)
}

// Pending returns the ids of the envelopes not acknowledged.
func (s *Server) Pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.pending {
		out = append(out, e.ID)
	}
	return out
}

// Acked returns the ids of the acknowledged envelopes, in order.
func (s *Server) Acked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.acked...)
}

// IgnoreAcks makes the server forget acknowledgements while on, as if
// they were lost: every envelope sent stays pending and is sent again on
// the next connection.
func (s *Server) IgnoreAcks(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ignoreAk = on
}

// Disconnect sends {"type":"disconnect","reason":reason} on every open
// connection, as Slack does before it refreshes one; the connection stays
// open until the client closes it.
func (s *Server) Disconnect(reason string) {
	s.mu.Lock()
	conns := slices.Clone(s.conns)
	s.mu.Unlock()
	for _, c := range conns {
		s.write(context.Background(), c, map[string]any{"type": "disconnect", "reason": reason})
	}
}

// Drop closes every open connection abruptly, without a close frame.
func (s *Server) Drop() {
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.changedLocked()
	s.mu.Unlock()
	for _, c := range conns {
		c.CloseNow()
	}
}

// WaitConnected waits until a connection is open that was opened after
// the first n.
func (s *Server) WaitConnected(ctx context.Context, n int) error {
	return s.Wait(ctx, func() bool {
		opened, open := s.Connections()
		return opened > n && open > 0
	})
}
