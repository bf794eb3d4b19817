package discordtest

import (
	"context"
	"slices"
)

// Drop cuts the Gateway connection without a close frame, as a network
// failure does; the session stays resumable.
func (s *Server) Drop() {
	s.mu.Lock()
	c := s.gw.conn
	s.mu.Unlock()
	if c != nil {
		_ = c.ws.CloseNow()
	}
}

// Reconnect sends op 7 Reconnect on the live connection.
func (s *Server) Reconnect() { s.op(map[string]any{"op": 7, "d": nil}) }

// InvalidSession sends op 9 Invalid Session; with resumable false the
// session is forgotten, so a Resume of it fails too.
func (s *Server) InvalidSession(resumable bool) {
	if !resumable {
		s.mu.Lock()
		if c := s.gw.conn; c != nil && c.sess != nil {
			delete(s.gw.sessions, c.sess.id)
		}
		s.mu.Unlock()
	}
	s.op(map[string]any{"op": 9, "d": resumable})
}

// CloseWith closes the live connection with a Gateway close code (4004
// authentication failed, 4014 disallowed intents, 4000 unknown error …).
func (s *Server) CloseWith(code int, reason string) {
	s.mu.Lock()
	c := s.gw.conn
	s.mu.Unlock()
	if c != nil {
		s.closeWith(c, code, reason)
	}
}

// StopACKs makes the server stop (or, with false, resume) acknowledging
// heartbeats, as a zombie connection does.
func (s *Server) StopACKs(stop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gw.noACK = stop
}

// RefuseContentIntent makes an Identify asking for MESSAGE_CONTENT get
// close 4014, as when the intent is not enabled in the developer portal.
func (s *Server) RefuseContentIntent() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gw.refuseContent = true
}

func (s *Server) op(v map[string]any) {
	s.mu.Lock()
	c := s.gw.conn
	s.mu.Unlock()
	if c != nil {
		_ = c.write(context.Background(), v)
	}
}

// Identifies returns how many Identify payloads the server received.
func (s *Server) Identifies() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.identifies
}

// Resumes returns the Resume payloads the server received.
func (s *Server) Resumes() []Resume {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.gw.resumes)
}

// Heartbeats returns the sequence number of every heartbeat received
// (nil for a heartbeat with d null).
func (s *Server) Heartbeats() []*int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.gw.heartbeats)
}

// Closes returns the close codes the server sent.
func (s *Server) Closes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.gw.closes)
}

// Live reports whether a connection is up: READY or RESUMED was sent on
// it.
func (s *Server) Live() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw.conn != nil && s.gw.conn.ready
}

// WaitLive waits until a connection is up with a session.
func (s *Server) WaitLive(ctx context.Context) error {
	return s.Wait(ctx, s.Live)
}

// IdentifiesLeft sets the session_start_limit GET /gateway/bot reports:
// how many identifies are left, and the milliseconds until the budget
// resets.
func (s *Server) IdentifiesLeft(remaining, resetAfterMillis int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gw.startLeft, s.gw.startReset = &remaining, resetAfterMillis
}

func (s *Server) startLimit() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	left, reset := 1000-s.gw.identifies, 86_400_000
	if s.gw.startLeft != nil {
		left, reset = *s.gw.startLeft, s.gw.startReset
	}
	return map[string]int{"total": 1000, "remaining": left, "reset_after": reset, "max_concurrency": 1}
}
