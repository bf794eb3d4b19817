package gateway

import (
	"context"
	"log/slog"
)

// HygieneShare is the share of the context window past which a chat's
// session is compressed before its next turn (seed 000's gateway
// hygiene): high enough that the loop's own compression, at its lower
// threshold, normally acts first; low enough that the message about to
// be added, and the reply, still fit.
const HygieneShare = 0.85

// tidy compresses the chat's session before a turn when it has grown past
// HygieneShare of the window, and returns the session the turn runs in:
// the compressed child, bound to the chat's key, or sessionID unchanged.
// A failed compression is logged and the turn goes on in the session it
// had: the loop's own compression, or the provider's refusal, still
// guards the window.
func (r *Runner) tidy(ctx context.Context, p Platform, ev Event, key, sessionID string) string {
	if r.opt.Tidy == nil || sessionID == "" {
		return sessionID
	}
	child, note, err := r.opt.Tidy(ctx, sessionID)
	if err != nil {
		r.log.Warn("gateway: session hygiene failed; the turn goes on", slog.String("session_id", sessionID), slog.String("error", err.Error()))
		return sessionID
	}
	if child == "" || child == sessionID {
		return sessionID
	}
	if r.opt.Bind != nil {
		if err := r.opt.Bind(context.WithoutCancel(ctx), key, child); err != nil {
			r.log.Error("gateway: the chat's compressed session was not recorded", slog.String("session_id", child), slog.String("error", err.Error()))
		}
	}
	r.log.Info("gateway: session compressed before the turn", slog.String("session_id", child), slog.String("parent_session_id", sessionID))
	if note != "" {
		r.reply(ctx, p, ev, child, note)
	}
	return child
}
