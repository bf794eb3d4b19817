package engine

import (
	"context"
	"strings"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/hooks"
)

// hookContextNote opens the context pre_llm_call hooks add to a user's
// message, so the model can tell it from what the user wrote.
const hookContextNote = "[Context added by the operator's pre_llm_call hook; it is information, not the user's words]"

// withHookContext runs the pre_llm_call hooks of a turn, once before its
// first model call, with the user's message, and returns text (the
// message as the model will read it) with what they add after it.
func (e *Engine) withHookContext(ctx context.Context, sessionID, source, message, text string) string {
	added := e.opt.Hooks.Context(ctx, hooks.Payload{SessionID: sessionID, Source: source, Message: message})
	if len(added) == 0 {
		return text
	}
	return text + "\n\n" + hookContextNote + "\n" + strings.Join(added, "\n\n")
}

// sessionStarted runs the on_session_start hooks of a session made for a
// turn.
func (e *Engine) sessionStarted(ctx context.Context, sessionID, source string) {
	e.opt.Hooks.Notify(ctx, hooks.Payload{Event: hooks.OnSessionStart, SessionID: sessionID, Source: source})
}

// turnEnded runs the on_turn_end hooks with the turn's answer.
func (e *Engine) turnEnded(ctx context.Context, sessionID, source string, res *agent.Result) {
	e.opt.Hooks.Notify(context.WithoutCancel(ctx), hooks.Payload{Event: hooks.OnTurnEnd, SessionID: sessionID, Source: source,
		Final: res.Final, Stopped: string(res.Stopped)})
}

// SessionEnded runs the on_session_end hooks of a session that stopped
// being used; EndSession does it, and fronts that end a session in the
// store themselves call it.
func (e *Engine) SessionEnded(ctx context.Context, sessionID, reason string) {
	if sessionID == "" {
		return
	}
	e.opt.Hooks.Notify(context.WithoutCancel(ctx), hooks.Payload{Event: hooks.OnSessionEnd, SessionID: sessionID, Reason: reason})
}
