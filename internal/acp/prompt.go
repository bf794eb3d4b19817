package acp

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/internal/tools/files"
)

// Prompt runs one turn in the session, streaming it as session updates,
// and answers with why it stopped. A session/cancel ends it with
// "cancelled"; what the turn did until then stays in the session.
func (s *Server) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	id := string(p.SessionId)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := s.start(id, cancel)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	defer s.finish(id)
	text := promptText(p.Prompt)
	if strings.TrimSpace(text) == "" {
		return acpsdk.PromptResponse{}, acpsdk.NewInvalidParams(map[string]any{
			"prompt": "empty", "error": "the prompt has no text or resource content; send at least one text block",
		})
	}
	msg, err := s.expand(text)
	if err != nil {
		return acpsdk.PromptResponse{}, acpsdk.NewInvalidParams(map[string]any{"prompt": text, "error": err.Error()})
	}
	u := newUpdater(s.conn, id, s.opt.Logger)
	u.workdir = st.workdir
	in := engine.Input{
		Text:     msg,
		Source:   Source,
		Workdir:  st.workdir,
		Model:    st.model,
		Tools:    st.tools(),
		Approval: asker(st.mode, &permissions{conn: s.conn, sessionID: id, calls: u}, st.workdir),
	}
	sink := &usageSink{Sink: u}
	res, err := s.opt.Turns.Turn(s.withTerminal(files.WithHooks(ctx, s.hooks(id, u)), id, u), id, in, sink)
	if ctx.Err() != nil {
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
	}
	if err != nil {
		return acpsdk.PromptResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	resp := acpsdk.PromptResponse{StopReason: stopReason(res.Result)}
	if res.Result != nil {
		resp.Usage = promptUsage(res.Usage)
		s.reportUsage(ctx, u, cmp.Or(res.SessionID, id), s.currentModel(&st), sink)
	}
	return resp, nil
}

// expand turns a prompt that starts with an advertised slash command into
// the message that runs it; other prompts go to the model as they are.
func (s *Server) expand(text string) (string, error) {
	name, args, ok := slash.Parse(text)
	if !ok || s.opt.Invoke == nil {
		return text, nil
	}
	for _, c := range s.opt.Commands {
		if c.Name == name {
			return s.opt.Invoke(name, args)
		}
	}
	return text, nil
}

// start marks a turn as running in the session, which must be open on
// this connection and idle.
func (s *Server) start(id string, cancel context.CancelFunc) (state, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.sessions[id]
	if !ok {
		return state{}, notOpen(id)
	}
	if s.closing {
		return state{}, acpsdk.NewInternalError(map[string]any{"error": "hermes is shutting down; start it again"})
	}
	if st.cancel != nil {
		return state{}, acpsdk.NewInvalidRequest(map[string]any{
			"sessionId": id, "error": "a turn is already running in this session; wait for its answer or send session/cancel",
		})
	}
	st.cancel = cancel
	s.turns.Add(1)
	return *st, nil
}

// finish marks the session's turn as ended.
func (s *Server) finish(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[id]; ok {
		st.cancel = nil
	}
	s.turns.Done()
}

// promptText is the user's message: the text blocks, and the files the
// editor attached, as text the model can read.
func promptText(blocks []acpsdk.ContentBlock) string {
	var b strings.Builder
	add := func(s string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	for _, c := range blocks {
		switch {
		case c.Text != nil:
			add(c.Text.Text)
		case c.ResourceLink != nil:
			add("Attached file: " + c.ResourceLink.Uri)
		case c.Resource != nil:
			if r := c.Resource.Resource.TextResourceContents; r != nil {
				add(fmt.Sprintf("Contents of %s:\n```\n%s\n```", r.Uri, r.Text))
			}
		}
	}
	return b.String()
}

// stopReason maps why the agent loop stopped onto ACP's stop reasons.
func stopReason(r *agent.Result) acpsdk.StopReason {
	if r == nil {
		return acpsdk.StopReasonEndTurn
	}
	switch r.Stopped {
	case agent.StopMaxTurns, agent.StopRepeatGuard, agent.StopInvalidCalls:
		return acpsdk.StopReasonMaxTurnRequests
	case agent.StopTruncated:
		return acpsdk.StopReasonMaxTokens
	case agent.StopInterrupted:
		return acpsdk.StopReasonCancelled
	}
	return acpsdk.StopReasonEndTurn
}
