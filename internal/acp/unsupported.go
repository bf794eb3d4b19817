package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"
)

// CloseSession cancels the session's running turn, disconnects the MCP
// servers the editor passed for it, removes what its commands left for
// the editor's terminals and forgets it on this connection; the session
// itself stays stored and can be loaded again.
func (s *Server) CloseSession(_ context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	s.mu.Lock()
	var m *sessionMCP
	var sh *editorShell
	if st, ok := s.sessions[string(p.SessionId)]; ok {
		if st.cancel != nil {
			st.cancel()
		}
		m, sh = st.mcp, st.shell
		delete(s.sessions, string(p.SessionId))
	}
	s.mu.Unlock()
	m.close()
	sh.remove()
	return acpsdk.CloseSessionResponse{}, nil
}

// ResumeSession is not offered (initialize does not announce it):
// session/load is how an editor continues a session.
func (s *Server) ResumeSession(context.Context, acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	return acpsdk.ResumeSessionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionResume)
}
