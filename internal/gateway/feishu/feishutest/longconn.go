package feishutest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// wsState is the long connection's side of the server.
type wsState struct {
	conn     *websocket.Conn
	tickets  map[string]bool
	connects int
	pings    int
	// refuse, when set, refuses the next handshakes with these headers.
	refuse []http.Header
	// fragment cuts payloads into parts of this many bytes; 0 never.
	fragment int
	next     int
	acks     map[string]chan ack
	// addr, when set, is the address handed out instead of the server's.
	addr string
}

// ack is the client's answer to a data frame.
type ack struct {
	code int
	data []byte
}

// serviceID is the service_id in the connection's URL, which the client
// puts in its pings.
const serviceID = 33

// ackWait is how long a data frame waits for its ack before it counts as
// not answered.
const ackWait = 5 * time.Second

// endpoint answers POST /callback/ws/endpoint: the address to connect to,
// with a one-time ticket, and the client config.
func (s *Server) endpoint(w http.ResponseWriter, r *http.Request) {
	var in struct {
		AppID     string `json:"AppID"`
		AppSecret string `json:"AppSecret"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.AppID != s.AppID || in.AppSecret != s.AppSecret {
		writeJSON(w, http.StatusOK, map[string]any{"code": 1000040344, "msg": "app id or app secret is wrong"})
		return
	}
	s.mu.Lock()
	s.ws.next++
	ticket := fmt.Sprintf("tk%d", s.ws.next)
	if s.ws.tickets == nil {
		s.ws.tickets = map[string]bool{}
	}
	s.ws.tickets[ticket] = true
	base := s.ws.addr
	s.mu.Unlock()
	if base == "" {
		base = "ws" + strings.TrimPrefix(s.URL, "http") + "/ws"
	}
	u := base + fmt.Sprintf("?device_id=d%s&service_id=%d&ticket=%s", ticket, serviceID, ticket)
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "ok", "data": map[string]any{"URL": u,
		"ClientConfig": map[string]int{"ReconnectCount": -1, "ReconnectInterval": 1, "ReconnectNonce": 0, "PingInterval": 60}}})
}

// accept answers the WebSocket handshake of a client with a ticket, and
// reads its frames until it goes.
func (s *Server) accept(w http.ResponseWriter, r *http.Request) {
	ticket := r.URL.Query().Get("ticket")
	s.mu.Lock()
	valid := s.ws.tickets[ticket]
	delete(s.ws.tickets, ticket)
	var refuse http.Header
	if len(s.ws.refuse) > 0 {
		refuse, s.ws.refuse = s.ws.refuse[0], s.ws.refuse[1:]
	}
	s.mu.Unlock()
	if !valid {
		refuse = http.Header{"Handshake-Status": {"514"}, "Handshake-Msg": {"invalid ticket"}, "Handshake-Autherrcode": {"1000040351"}}
	}
	if refuse != nil {
		for k, v := range refuse {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusForbidden)
		return
	}
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	conn.SetReadLimit(4 << 20)
	s.mu.Lock()
	if s.ws.conn != nil {
		s.ws.conn.CloseNow() // Feishu sends an app's events to one connection
	}
	s.ws.conn = conn
	s.ws.connects++
	s.changedLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.ws.conn == conn {
			s.ws.conn = nil
		}
		s.changedLocked()
		s.mu.Unlock()
		conn.CloseNow()
	}()
	ctx := context.Background()
	for {
		typ, b, err := conn.Read(ctx)
		if err != nil {
			return
		}
		f, err := UnmarshalFrame(b)
		if typ != websocket.MessageBinary || err != nil {
			conn.Close(websocket.StatusProtocolError, "not a frame")
			return
		}
		s.frame(ctx, conn, f)
	}
}

// frame answers a frame from the client: a ping with a pong, an ack by
// waking the frame it answers.
func (s *Server) frame(ctx context.Context, conn *websocket.Conn, f Frame) {
	switch {
	case f.Method == 0 && f.Headers["type"] == "ping":
		s.mu.Lock()
		s.ws.pings++
		s.changedLocked()
		s.mu.Unlock()
		if f.Service != serviceID {
			conn.Close(websocket.StatusPolicyViolation, "ping for another service")
			return
		}
		pong := Frame{Service: serviceID, Method: 0}
		pong.Set("type", "pong")
		pong.Payload, _ = json.Marshal(map[string]int{"ReconnectCount": -1, "ReconnectInterval": 1, "ReconnectNonce": 0, "PingInterval": 60})
		conn.Write(ctx, websocket.MessageBinary, pong.Marshal())
	case f.Method == 1:
		var a struct {
			Code int    `json:"code"`
			Data []byte `json:"data"`
		}
		if json.Unmarshal(f.Payload, &a) != nil {
			a.Code = -1
		}
		s.mu.Lock()
		ch := s.ws.acks[f.Headers["message_id"]]
		s.mu.Unlock()
		if ch != nil {
			select {
			case ch <- ack{a.Code, a.Data}:
			default:
			}
		}
	}
}

// sendFrame sends a payload of kind (event or card) down the connection,
// in parts when Fragment says so, and waits for its ack: it returns the
// ack's code and data, or 0 when there was no connection or no ack.
func (s *Server) sendFrame(kind string, payload []byte) (int, []byte) {
	s.mu.Lock()
	conn, size := s.ws.conn, s.ws.fragment
	s.ws.next++
	id := fmt.Sprintf("msg%d", s.ws.next)
	ch := make(chan ack, 1)
	if s.ws.acks == nil {
		s.ws.acks = map[string]chan ack{}
	}
	s.ws.acks[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.ws.acks, id)
		s.mu.Unlock()
	}()
	if conn == nil {
		return 0, nil
	}
	var parts [][]byte
	for size > 0 && len(payload) > size {
		parts, payload = append(parts, payload[:size]), payload[size:]
	}
	parts = append(parts, payload)
	ctx, cancel := context.WithTimeout(context.Background(), ackWait)
	defer cancel()
	for i, p := range parts {
		f := Frame{SeqID: uint64(i), LogID: uint64(s.ws.next), Service: serviceID, Method: 1, Payload: p}
		f.Set("type", kind)
		f.Set("message_id", id)
		f.Set("sum", strconv.Itoa(len(parts)))
		f.Set("seq", strconv.Itoa(i))
		f.Set("trace_id", "trace-"+id)
		if conn.Write(ctx, websocket.MessageBinary, f.Marshal()) != nil {
			return 0, nil
		}
	}
	select {
	case a := <-ch:
		return a.code, a.data
	case <-ctx.Done():
		return 0, nil
	}
}

// Disconnect drops the long connection, as a network fault or Feishu's
// own restart does.
func (s *Server) Disconnect() {
	s.mu.Lock()
	conn := s.ws.conn
	s.mu.Unlock()
	if conn != nil {
		conn.CloseNow()
	}
}

// Connected reports whether a client holds the long connection.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ws.conn != nil
}

// Connects is how many long connections were opened; Pings how many pings
// came down them.
func (s *Server) Connects() (connects, pings int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ws.connects, s.ws.pings
}

// Fragment makes payloads longer than size bytes go in parts (sum, seq).
func (s *Server) Fragment(size int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ws.fragment = size
}

// HandOut makes the endpoint hand out addr (a ws:// URL without a query)
// instead of the server's own, as when Feishu's gateway is unreachable.
func (s *Server) HandOut(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ws.addr = addr
}

// RefuseHandshake refuses the next handshake with Feishu's headers:
// status 514 with authErr 1000040350 is the connection limit.
func (s *Server) RefuseHandshake(status, authErr int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ws.refuse = append(s.ws.refuse, http.Header{"Handshake-Status": {strconv.Itoa(status)},
		"Handshake-Msg": {msg}, "Handshake-Autherrcode": {strconv.Itoa(authErr)}})
}
