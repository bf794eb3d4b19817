package acp

import (
	"context"
	"errors"
	"fmt"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// maxListed is how many sessions session/list returns at most.
const maxListed = 100

// LoadSession opens a stored session and replays its conversation as
// session updates: the user's messages, hermes's answers and reasoning,
// and each tool call with its result.
func (s *Server) LoadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	servers, err := s.mcpConfigs(p.McpServers)
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	id := string(p.SessionId)
	if _, err := s.opt.Store.Get(ctx, id); err != nil {
		if errors.Is(err, session.ErrNotFound) {
			return acpsdk.LoadSessionResponse{}, acpsdk.NewInvalidParams(map[string]any{
				"sessionId": id, "error": fmt.Sprintf("session %q does not exist; session/list shows the sessions there are", id),
			})
		}
		return acpsdk.LoadSessionResponse{}, err
	}
	msgs, err := s.opt.Store.Messages(ctx, id)
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	u := newUpdater(s.conn, id, s.opt.Logger)
	for _, m := range msgs {
		replay(u, m.Message)
	}
	m, failed := s.connectMCP(ctx, servers)
	st := s.open(id, p.Cwd, m)
	s.advertise(id)
	s.reportMCP(id, failed)
	return acpsdk.LoadSessionResponse{Modes: modeState(st.mode), Models: s.modelState(&st), ConfigOptions: s.configOptions(id)}, nil
}

// replay sends one stored message as the updates it was streamed as.
func replay(u *updater, m llm.Message) {
	switch m.Role {
	case llm.RoleUser:
		if t := m.Text(); t != "" {
			u.send(acpsdk.UpdateUserMessageText(t))
		}
	case llm.RoleAssistant:
		if m.Reasoning != "" {
			u.send(acpsdk.UpdateAgentThoughtText(m.Reasoning))
		}
		if t := m.Text(); t != "" {
			u.send(acpsdk.UpdateAgentMessageText(t))
		}
		for _, c := range m.ToolCalls {
			u.send(acpsdk.StartToolCall(acpsdk.ToolCallId(c.ID), title(c.Name, c.Arguments),
				acpsdk.WithStartKind(kind(c.Name)),
				acpsdk.WithStartStatus(acpsdk.ToolCallStatusPending),
				acpsdk.WithStartRawInput(rawJSON(c.Arguments))))
		}
	case llm.RoleTool:
		u.send(acpsdk.UpdateToolCall(acpsdk.ToolCallId(m.ToolCallID),
			acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusCompleted),
			acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(m.Text()))})))
	}
}

// ListSessions lists the sessions opened from editors, newest first,
// those in cwd only when the editor names one.
func (s *Server) ListSessions(ctx context.Context, p acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	list, err := s.opt.Store.List(ctx, session.ListOptions{Source: Source, Limit: maxListed})
	if err != nil {
		return acpsdk.ListSessionsResponse{}, err
	}
	out := acpsdk.ListSessionsResponse{Sessions: []acpsdk.SessionInfo{}}
	for _, ss := range list {
		if p.Cwd != nil && *p.Cwd != "" && ss.Cwd != *p.Cwd {
			continue
		}
		info := acpsdk.SessionInfo{SessionId: acpsdk.SessionId(ss.ID), Cwd: ss.Cwd}
		if ss.Title != "" {
			t := ss.Title
			info.Title = &t
		}
		if !ss.StartedAt.IsZero() {
			at := ss.StartedAt.UTC().Format(time.RFC3339)
			info.UpdatedAt = &at
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

// advertise tells the editor the slash commands hermes takes.
func (s *Server) advertise(id string) {
	if len(s.opt.Commands) == 0 {
		return
	}
	cmds := make([]acpsdk.AvailableCommand, 0, len(s.opt.Commands))
	for _, c := range s.opt.Commands {
		ac := acpsdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.Args != "" {
			ac.Input = &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: c.Args}}
		}
		cmds = append(cmds, ac)
	}
	u := newUpdater(s.conn, id, s.opt.Logger)
	// Sent after the response, as clients only know the session then.
	go u.send(acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{
		AvailableCommands: cmds, SessionUpdate: "available_commands_update",
	}})
}
