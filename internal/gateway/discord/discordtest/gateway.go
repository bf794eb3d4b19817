package discordtest

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/coder/websocket"
)

// messageContentIntent is the privileged intent without which guild
// messages that do not mention the bot arrive without content.
const messageContentIntent = 1 << 15

// gatewayState is the Gateway side of the server: the sessions, the
// connection (one at a time, as one bot without shards has) and the
// faults to play.
type gatewayState struct {
	heartbeat int
	// dmu orders dispatches: a sequence number is taken and its event
	// written under it, and a Resume's replay holds it.
	dmu      sync.Mutex
	sessions map[string]*gwSession
	conn     *gwConn
	nextSess int

	// noACK stops acknowledging heartbeats; refuseContent closes an
	// Identify asking for MESSAGE_CONTENT with 4014.
	noACK         bool
	refuseContent bool

	identifies int
	// startLeft and startReset override the session_start_limit that
	// GET /gateway/bot reports.
	startLeft  *int
	startReset int
	resumes    []Resume
	heartbeats []*int64
	// closes are the close codes the server sent, in order.
	closes []int
}

// Resume is a Resume the server received.
type Resume struct {
	SessionID string
	Seq       int64
	// Path is where the client connected: /resume when it followed
	// resume_gateway_url.
	Path string
}

// gwSession is one Gateway session: the events dispatched in it, for
// replay on Resume.
type gwSession struct {
	id      string
	intents int
	seq     int64
	events  []event
}

type event struct {
	seq int64
	t   string
	d   any
}

// gwConn is a live connection; wmu orders its writes.
type gwConn struct {
	ws *websocket.Conn
	// sess is nil until Identify or Resume; Server.mu guards it.
	sess *gwSession
	// ready is set once READY or RESUMED was written; Server.mu guards
	// it.
	ready bool
	wmu   sync.Mutex
}

func (c *gwConn) write(ctx context.Context, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.Write(ctx, websocket.MessageText, data)
}

// serveGateway runs one connection: Hello, then Identify or Resume, then
// heartbeats until it ends.
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	if q := r.URL.Query(); q.Get("v") != "10" || q.Get("encoding") != "json" {
		http.Error(w, "want ?v=10&encoding=json", http.StatusBadRequest)
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	c := &gwConn{ws: ws}
	s.mu.Lock()
	if old := s.gw.conn; old != nil {
		_ = old.ws.CloseNow()
	}
	s.gw.conn = c
	hb := s.gw.heartbeat
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.gw.conn == c {
			s.gw.conn = nil
		}
		s.changedLocked()
		s.mu.Unlock()
		_ = ws.CloseNow()
	}()
	ctx := r.Context()
	if c.write(ctx, map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": hb}}) != nil {
		return
	}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		var p struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if json.Unmarshal(data, &p) != nil {
			s.closeWith(c, 4002, "Decode error")
			return
		}
		if !s.handle(ctx, c, r.URL.Path, p.Op, p.D) {
			return
		}
	}
}

// handle answers one payload from the client; false ends the connection.
func (s *Server) handle(ctx context.Context, c *gwConn, path string, op int, d json.RawMessage) bool {
	switch op {
	case 1:
		var seq *int64
		_ = json.Unmarshal(d, &seq)
		s.mu.Lock()
		s.gw.heartbeats = append(s.gw.heartbeats, seq)
		ack := !s.gw.noACK
		s.changedLocked()
		s.mu.Unlock()
		if ack {
			return c.write(ctx, map[string]any{"op": 11}) == nil
		}
		return true
	case 2:
		return s.identify(ctx, c, d)
	case 6:
		return s.resume(ctx, c, path, d)
	default:
		s.closeWith(c, 4001, "Unknown opcode")
		return false
	}
}

func (s *Server) identify(ctx context.Context, c *gwConn, d json.RawMessage) bool {
	var id struct {
		Token   string `json:"token"`
		Intents int    `json:"intents"`
	}
	_ = json.Unmarshal(d, &id)
	s.mu.Lock()
	s.gw.identifies++
	refuse, authed := s.gw.refuseContent, c.sess != nil
	s.mu.Unlock()
	switch {
	case authed:
		s.closeWith(c, 4005, "Already authenticated")
		return false
	case id.Token != s.Token:
		s.closeWith(c, 4004, "Authentication failed")
		return false
	case refuse && id.Intents&messageContentIntent != 0:
		s.closeWith(c, 4014, "Disallowed intent(s)")
		return false
	}
	s.mu.Lock()
	s.gw.nextSess++
	sess := &gwSession{id: "sess-" + strconv.Itoa(s.gw.nextSess), intents: id.Intents}
	s.gw.sessions[sess.id] = sess
	c.sess = sess
	s.mu.Unlock()
	ready := map[string]any{"v": 10, "user": s.Bot, "guilds": []any{}, "session_id": sess.id,
		"resume_gateway_url": s.resumeURL(), "application": map[string]any{"id": s.AppID, "flags": 0}}
	if s.dispatch(sess, "READY", ready) != nil {
		return false
	}
	s.setReady(c)
	return true
}

func (s *Server) resume(ctx context.Context, c *gwConn, path string, d json.RawMessage) bool {
	var r struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	_ = json.Unmarshal(d, &r)
	s.mu.Lock()
	s.gw.resumes = append(s.gw.resumes, Resume{SessionID: r.SessionID, Seq: r.Seq, Path: path})
	sess := s.gw.sessions[r.SessionID]
	latest := int64(-1)
	if sess != nil {
		latest = sess.seq
	}
	s.changedLocked()
	s.mu.Unlock()
	if r.Token != s.Token {
		s.closeWith(c, 4004, "Authentication failed")
		return false
	}
	if sess == nil || r.Seq > latest {
		return c.write(ctx, map[string]any{"op": 9, "d": false}) == nil
	}
	// Replay what came after seq, then RESUMED, holding the dispatches
	// so that nothing new comes in between.
	s.gw.dmu.Lock()
	defer s.gw.dmu.Unlock()
	s.mu.Lock()
	c.sess = sess
	var replay []event
	for _, e := range sess.events {
		if e.seq > r.Seq {
			replay = append(replay, e)
		}
	}
	sess.seq++
	resumed := event{seq: sess.seq, t: "RESUMED", d: map[string]any{}}
	sess.events = append(sess.events, resumed)
	s.mu.Unlock()
	for _, e := range append(replay, resumed) {
		if c.write(ctx, e.frame()) != nil {
			return false
		}
	}
	s.setReady(c)
	return true
}

// setReady marks c as up, for Live.
func (s *Server) setReady(c *gwConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.ready = true
	s.changedLocked()
}

func (e event) frame() map[string]any {
	return map[string]any{"op": 0, "s": e.seq, "t": e.t, "d": e.d}
}

// resumeURL is the resume_gateway_url READY gives: another path on the
// same server, so a test sees whether the client followed it.
func (s *Server) resumeURL() string {
	return s.GatewayURL[:len(s.GatewayURL)-len("/gateway")] + "/resume"
}

// dispatch numbers an event in sess, keeps it for replay and sends it if
// the session's connection is up.
func (s *Server) dispatch(sess *gwSession, t string, d any) error {
	s.gw.dmu.Lock()
	defer s.gw.dmu.Unlock()
	s.mu.Lock()
	sess.seq++
	e := event{seq: sess.seq, t: t, d: d}
	sess.events = append(sess.events, e)
	c := s.gw.conn
	live := c != nil && c.sess == sess
	s.changedLocked()
	s.mu.Unlock()
	if !live {
		return nil // replayed on Resume
	}
	return c.write(context.Background(), e.frame())
}

// closeWith closes c with a Gateway close code.
func (s *Server) closeWith(c *gwConn, code int, reason string) {
	s.mu.Lock()
	s.gw.closes = append(s.gw.closes, code)
	s.changedLocked()
	s.mu.Unlock()
	_ = c.ws.Close(websocket.StatusCode(code), reason)
}

// sessionLocked returns the session events go to: the live connection's,
// else the last one made; s.mu is held.
func (s *Server) sessionLocked() *gwSession {
	if s.gw.conn != nil && s.gw.conn.sess != nil {
		return s.gw.conn.sess
	}
	var last *gwSession
	for _, sess := range s.gw.sessions {
		if last == nil || sess.id > last.id {
			last = sess
		}
	}
	return last
}
