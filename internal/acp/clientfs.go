package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/tools/files"
)

// rememberClient keeps what the editor offers to do for hermes.
func (s *Server) rememberClient(c acpsdk.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientFS = c.Fs
	s.clientTerminal = c.Terminal
}

// hooks are the file hooks of a turn in session id: its changes reach
// the editor as diffs through u, and when the editor offered
// fs/read_text_file or fs/write_text_file in initialize, the file tools
// read and write local files through it, so that they see its unsaved
// buffers and their changes join its undo history. search_files and the
// terminal still use the disk.
func (s *Server) hooks(id string, u *updater) files.Hooks {
	s.mu.Lock()
	caps := s.clientFS
	s.mu.Unlock()
	h := files.Hooks{Changed: u.changed}
	sid := acpsdk.SessionId(id)
	if caps.ReadTextFile {
		h.ReadText = func(ctx context.Context, path string) (string, error) {
			resp, err := s.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: sid, Path: path})
			return resp.Content, err
		}
	}
	if caps.WriteTextFile {
		h.WriteText = func(ctx context.Context, path, content string) error {
			_, err := s.conn.WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: sid, Path: path, Content: content})
			return err
		}
	}
	return h
}
