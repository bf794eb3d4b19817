package dingtalktest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/coder/websocket"
)

// BotTopic is the Stream topic of robot messages.
const BotTopic = "/v1.0/im/bot/messages/get"

// Frame is a frame the server pushes.
type Frame struct {
	SpecVersion string            `json:"specVersion"`
	Type        string            `json:"type"`
	Headers     map[string]string `json:"headers"`
	Data        string            `json:"data"`
}

// Ack is a client's answer to a frame.
type Ack struct {
	Code    int               `json:"code"`
	Headers map[string]string `json:"headers"`
	Message string            `json:"message"`
	Data    string            `json:"data"`
}

func (s *Server) open(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ClientID      string `json:"clientId"`
		ClientSecret  string `json:"clientSecret"`
		Subscriptions []struct{ Type, Topic string }
	}
	if err := readJSON(r, &in); err != nil {
		apiError(w, 400, "MissingParameter", "the body is not JSON")
		return
	}
	if in.ClientID != s.ClientID || in.ClientSecret != s.ClientSecret {
		apiError(w, 401, "InvalidAuthentication", "clientId or clientSecret is wrong")
		return
	}
	bot := false
	for _, sub := range in.Subscriptions {
		bot = bot || sub.Type == "CALLBACK" && sub.Topic == BotTopic
	}
	if !bot {
		apiError(w, 400, "InvalidParameter", "no subscription to "+BotTopic)
		return
	}
	ticket := randomID("ticket")
	s.mu.Lock()
	s.tickets[ticket] = true
	s.opens++
	s.mu.Unlock()
	writeJSON(w, 200, map[string]string{"endpoint": "ws" + strings.TrimPrefix(s.URL, "http") + "/gateway/ws", "ticket": ticket})
}

// websocket takes a Stream connection with a ticket connections/open
// issued, once, and reads its acks until it ends.
func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	ticket := r.URL.Query().Get("ticket")
	s.mu.Lock()
	ok := s.tickets[ticket]
	delete(s.tickets, ticket)
	s.mu.Unlock()
	if !ok {
		http.Error(w, "unknown or used ticket", http.StatusUnauthorized)
		return
	}
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.conn != nil {
		s.conn.CloseNow()
	}
	s.conn = conn
	s.connects++
	s.changedLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.conn == conn {
			s.conn = nil
			s.changedLocked()
		}
		s.mu.Unlock()
		conn.CloseNow()
	}()
	for {
		_, data, err := conn.Read(context.Background())
		if err != nil {
			return
		}
		var a Ack
		if json.Unmarshal(data, &a) != nil {
			continue
		}
		s.mu.Lock()
		s.acks = append(s.acks, a)
		s.changedLocked()
		s.mu.Unlock()
	}
}

// push sends f on the Stream connection; false when none is up.
func (s *Server) push(ctx context.Context, f Frame) bool {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn == nil {
		return false
	}
	data, _ := json.Marshal(f)
	return conn.Write(ctx, websocket.MessageText, data) == nil
}

// WaitConnected waits until a Stream connection is up, the n-th since
// the server started.
func (s *Server) WaitConnected(ctx context.Context, n int) error {
	return s.Wait(ctx, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.conn != nil && s.connects >= n
	})
}

// Connects is how many Stream connections were made, and Opens how many
// tickets were issued.
func (s *Server) Connects() (connects, opens int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connects, s.opens
}

// Acks returns the acks received, in order.
func (s *Server) Acks() []Ack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Ack(nil), s.acks...)
}

// WaitAck waits for the ack of the frame with messageID.
func (s *Server) WaitAck(ctx context.Context, messageID string) (Ack, error) {
	var found Ack
	err := s.Wait(ctx, func() bool {
		for _, a := range s.Acks() {
			if a.Headers["messageId"] == messageID {
				found = a
				return true
			}
		}
		return false
	})
	return found, err
}

// Ping pushes a SYSTEM ping and returns its messageId and the data the
// client must echo.
func (s *Server) Ping(ctx context.Context) (id, data string, ok bool) {
	id, data = s.frameID(), `{"opaque":"`+randomID("")+`"}`
	return id, data, s.push(ctx, Frame{SpecVersion: "1.0", Type: "SYSTEM",
		Headers: map[string]string{"topic": "ping", "messageId": id, "contentType": "application/json"}, Data: data})
}

// Disconnect pushes a SYSTEM disconnect, after which the client is to
// open a new connection with a new ticket.
func (s *Server) Disconnect(ctx context.Context) bool {
	return s.push(ctx, Frame{SpecVersion: "1.0", Type: "SYSTEM",
		Headers: map[string]string{"topic": "disconnect", "messageId": s.frameID(), "contentType": "application/json"},
		Data:    `{"reason":"server is restarting"}`})
}

// Drop closes the Stream connection without a word, as a network fault
// would.
func (s *Server) Drop() {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		conn.CloseNow()
	}
}

func (s *Server) frameID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return fmt.Sprintf("frame-%d-%s", s.nextID, randomID(""))
}
