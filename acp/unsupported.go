package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"
)

// CloseSession cancels the session's running turn and forgets it on this
// connection; the session itself stays stored and can be loaded again.
func (s *Server) CloseSession(_ context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[string(p.SessionId)]; ok {
		if st.cancel != nil {
			st.cancel()
		}
		delete(s.sessions, string(p.SessionId))
	}
	return acpsdk.CloseSessionResponse{}, nil
}

// ResumeSession is not offered (initialize does not announce it):
// session/load is how an editor continues a session.
func (s *Server) ResumeSession(context.Context, acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	return acpsdk.ResumeSessionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionResume)
}
