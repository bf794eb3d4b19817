package matrix

import (
	"context"
	"net/http"
)

// isDM reports whether a room is a direct message: two joined members,
// the bot and one person. A room whose members cannot be read counts as
// a group, where hermes answers only when addressed.
func (a *Adapter) isDM(ctx context.Context, roomID string) bool {
	a.mu.Lock()
	n, ok := a.members[roomID]
	a.mu.Unlock()
	if !ok {
		var out struct {
			Joined map[string]struct{} `json:"joined"`
		}
		if err := a.call(ctx, http.MethodGet, "/_matrix/client/v3/rooms/"+pathEsc(roomID)+"/joined_members", nil, nil, &out); err != nil {
			a.log.Warn("matrix: the room's members could not be read; treating it as a group", "room", roomID, "err", err)
			return false
		}
		n = len(out.Joined)
		a.setMembers(roomID, n)
	}
	return n == 2
}

// repliesToBot reports whether a message is a reply to one of the bot's
// messages: one it sent since it started, or, asked of the homeserver,
// an earlier one.
func (a *Adapter) repliesToBot(ctx context.Context, roomID string, c messageContent) bool {
	if c.RelatesTo == nil || c.RelatesTo.InReplyTo == nil || c.RelatesTo.InReplyTo.EventID == "" {
		return false
	}
	id := c.RelatesTo.InReplyTo.EventID
	me, _ := a.who()
	a.mu.Lock()
	ours := a.ours[id]
	a.mu.Unlock()
	if ours {
		return true
	}
	var e event
	if err := a.call(ctx, http.MethodGet, "/_matrix/client/v3/rooms/"+pathEsc(roomID)+"/event/"+pathEsc(id), nil, nil, &e); err != nil {
		a.log.Debug("matrix: the message replied to could not be read", "room", roomID, "err", err)
		return false
	}
	return e.Sender == me
}

// setMembers records a room's joined member count.
func (a *Adapter) setMembers(roomID string, n int) {
	a.mu.Lock()
	a.members[roomID] = n
	a.mu.Unlock()
}

// forgetMembers drops a room's member count when someone joined or
// left, so the next message reads it again.
func (a *Adapter) forgetMembers(roomID string) {
	a.mu.Lock()
	delete(a.members, roomID)
	a.mu.Unlock()
}

// encryptedNotice tells an encrypted room, once, that hermes cannot read
// it, instead of silently ignoring every message there.
func (a *Adapter) encryptedNotice(ctx context.Context, roomID string) {
	a.mu.Lock()
	done := a.noticed[roomID]
	a.noticed[roomID] = true
	a.mu.Unlock()
	if done {
		return
	}
	a.log.Warn("matrix: a message in an encrypted room cannot be read; hermes answers in unencrypted rooms only", "room", roomID)
	content := map[string]any{"msgtype": "m.notice",
		"body": "I can't read this room: it is end-to-end encrypted, and hermes only works in unencrypted rooms. Create a room without encryption and invite me there."}
	if _, err := a.send(ctx, roomID, "m.room.message", content); err != nil {
		a.log.Warn("matrix: the notice about encryption was not sent", "room", roomID, "err", err)
	}
}
