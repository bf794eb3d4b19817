package matrix

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// hand works through one sync batch: invites, then each joined room's
// events in order, giving messages to deliver. It stops at the first
// event deliver refused, or a join that failed for a passing reason, so
// the batch is offered again. From no position (the sync that learned
// where now is) messages are history and are not delivered.
func (a *Adapter) hand(ctx context.Context, resp *syncResponse, pos position, deliver func(context.Context, gateway.Event) error) error {
	first := pos.Since == ""
	for roomID, r := range resp.Rooms.Invite {
		if err := a.onInvite(ctx, roomID, r); err != nil {
			return err
		}
	}
	for roomID, r := range resp.Rooms.Join {
		if n := r.Summary.Joined; n != nil {
			a.setMembers(roomID, *n)
		}
		for _, e := range append(r.State.Events, r.Timeline.Events...) {
			if e.Type == "m.room.member" {
				a.forgetMembers(roomID)
			}
		}
		if first {
			continue
		}
		// A room hermes just joined shows some of its past: only what
		// was written after the join is for hermes.
		events := r.Timeline.Events
		start := a.joinedAt(events)
		if r.Timeline.Limited && start == 0 {
			gap, err := a.backfill(ctx, roomID, r.Timeline.PrevBatch, pos)
			if err != nil {
				return err
			}
			events = append(gap, events...)
		}
		for _, e := range events[start:] {
			if err := a.roomEvent(ctx, roomID, e, deliver); err != nil {
				return err
			}
		}
	}
	return nil
}

// joinedAt is the index after the bot's own join in a timeline, 0 when
// the timeline does not hold it.
func (a *Adapter) joinedAt(evs []event) int {
	me, _ := a.who()
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		var m membership
		if e.Type == "m.room.member" && e.StateKey != nil && *e.StateKey == me && json.Unmarshal(e.Content, &m) == nil && m.Membership == "join" {
			return i + 1
		}
	}
	return 0
}

// onInvite joins a room when the user who invited the bot may invite it;
// any other invite is left pending, so a stranger cannot pull hermes into
// a room.
func (a *Adapter) onInvite(ctx context.Context, roomID string, r invitedRoom) error {
	me, _ := a.who()
	inviter := ""
	for _, e := range r.InviteState.Events {
		var m membership
		if e.Type == "m.room.member" && e.StateKey != nil && *e.StateKey == me && json.Unmarshal(e.Content, &m) == nil && m.Membership == "invite" {
			inviter = e.Sender
		}
	}
	if inviter == "" || a.invite == nil || !a.invite(ctx, inviter) {
		a.log.Info("matrix: an invite from someone not allowed is left pending", "room", roomID, "inviter", inviter)
		return nil
	}
	err := a.call(ctx, http.MethodPost, "/_matrix/client/v3/join/"+pathEsc(roomID), nil, struct{}{}, nil)
	switch {
	case err == nil:
		a.log.Info("matrix: joined a room on invite", "room", roomID, "inviter", inviter)
	case temporary(err) || rateLimitedErr(err):
		return fmt.Errorf("joining %s: %w", roomID, err)
	default:
		a.log.Warn("matrix: joining a room failed", "room", roomID, "err", err)
	}
	return nil
}

// roomEvent delivers one timeline event when it is a text message from
// someone else; it tells an encrypted room once that hermes cannot read
// it.
func (a *Adapter) roomEvent(ctx context.Context, roomID string, e event, deliver func(context.Context, gateway.Event) error) error {
	me, _ := a.who()
	if e.Sender == me || e.EventID == "" {
		return nil
	}
	switch e.Type {
	case "m.room.encrypted":
		a.encryptedNotice(ctx, roomID)
		return nil
	case "m.room.message":
	default:
		return nil
	}
	var c messageContent
	if err := json.Unmarshal(e.Content, &c); err != nil {
		return nil
	}
	if c.RelatesTo != nil && c.RelatesTo.RelType == "m.replace" {
		// An edit is not a new request; answering it would answer twice.
		return nil
	}
	var text string
	var media []gateway.Media
	switch c.MsgType {
	case "m.text":
		text = stripReplyFallback(c.Body)
	case "m.image", "m.file", "m.audio", "m.video":
		var fc fileContent
		if json.Unmarshal(e.Content, &fc) != nil {
			return nil
		}
		m, caption, ok := a.media(c.MsgType, fc)
		if !ok {
			a.log.Warn("matrix: a file message without an mxc:// url is skipped", "room", roomID, "event", e.EventID)
			return nil
		}
		text, media = caption, []gateway.Media{m}
	default:
		// Notices (other bots), emotes, locations, polls: not requests.
		return nil
	}
	if strings.TrimSpace(text) == "" && len(media) == 0 {
		return nil
	}
	ev := gateway.Event{
		ID:        e.EventID,
		Kind:      gateway.KindMessage,
		Chat:      gateway.Chat{ID: roomID, Type: gateway.Group},
		User:      gateway.User{ID: e.Sender, Name: e.Sender},
		Received:  a.clock.Now(),
		Text:      text,
		MessageID: e.EventID,
		Media:     media,
	}
	if a.isDM(ctx, roomID) {
		ev.Chat.Type, ev.Addressed = gateway.DM, true
	} else {
		ev.Addressed = a.addressed(c, text) || a.repliesToBot(ctx, roomID, c)
	}
	return deliver(ctx, ev)
}

// addressed reports whether a group message is for the bot by what it
// says: it mentions the bot in m.mentions or by id or name in its text,
// or is a command.
func (a *Adapter) addressed(c messageContent, text string) bool {
	me, name := a.who()
	if c.Mentions != nil {
		for _, id := range c.Mentions.UserIDs {
			if id == me {
				return true
			}
		}
	}
	if strings.HasPrefix(text, "/") {
		return true
	}
	lower := strings.ToLower(text)
	for _, n := range []string{me, name, localpart(me)} {
		if n != "" && containsWord(lower, strings.ToLower(n)) {
			return true
		}
	}
	return false
}

// localpart is "hermes" of "@hermes:example.org".
func localpart(userID string) string {
	if i := strings.IndexByte(userID, ':'); strings.HasPrefix(userID, "@") && i > 1 {
		return userID[1:i]
	}
	return ""
}

// containsWord reports whether word occurs in s with no letter or digit
// joined to either end, so "hermes" is found in "hi hermes!" but not in
// "hermeses".
func containsWord(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !wordByte(s[start-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = start + 1
	}
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// stripReplyFallback removes the quote of the replied-to message that
// clients put at the start of a reply's body ("> <@user:server> text"
// lines, then a blank line), so the model sees what was written.
func stripReplyFallback(body string) string {
	if !strings.HasPrefix(body, "> <") {
		return body
	}
	lines := strings.Split(body, "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(lines[i], ">") {
		i++
	}
	if i < len(lines) && lines[i] == "" {
		i++
	}
	return strings.Join(lines[i:], "\n")
}
