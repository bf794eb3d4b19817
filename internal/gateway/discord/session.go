package discord

import (
	"context"
	"encoding/json"
)

// storedSession is a session as SessionStore keeps it: its id and the
// last event taken. Not its resume address: the process that loads it
// resumes through the Gateway address it finds itself (GatewayURL, or
// GET /gateway/bot), which Discord accepts as well, and which is the
// one its own network (a proxy in front of the Gateway) lets it reach.
type storedSession struct {
	ID  string `json:"id"`
	Seq int64  `json:"seq"`
}

// loadSession is the session saved by the last process that received for
// the bot, to resume; a fresh one when none was saved or it cannot be
// read.
func (a *Adapter) loadSession(ctx context.Context) session {
	fresh := session{seq: -1}
	if a.sessions == nil {
		return fresh
	}
	v, err := a.sessions.Load(ctx)
	if err != nil {
		a.log.Warn("discord: the saved Gateway session could not be read; identifying afresh", "err", err)
		return fresh
	}
	var s storedSession
	if v == "" || json.Unmarshal([]byte(v), &s) != nil || s.ID == "" {
		return fresh
	}
	a.log.Info("discord: resuming the saved Gateway session", "seq", s.Seq)
	return session{id: s.ID, seq: s.Seq}
}

// saveSession keeps sess for the next process; a failure only costs the
// replay of what that process would have missed, so it is logged.
func (a *Adapter) saveSession(ctx context.Context, sess session) {
	if a.sessions == nil {
		return
	}
	v := ""
	if sess.id != "" {
		b, _ := json.Marshal(storedSession{ID: sess.id, Seq: sess.seq})
		v = string(b)
	}
	if err := a.sessions.Save(context.WithoutCancel(ctx), v); err != nil {
		a.log.Warn("discord: the Gateway session was not saved", "err", err)
	}
}
