package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Inbox keeps the messages the gateway took until their turns are over.
// A platform is told a message arrived as soon as the gateway has it
// (Telegram's update is confirmed), and from then on only the gateway
// knows of it: a message waiting behind a busy chat, or whose turn was
// running, when hermes stops would otherwise be lost without a word.
// gwstore keeps it in state.db; app adapts one to the other.
type Inbox interface {
	// Hold records a message about to wait for its turn, or, with
	// started set, one whose turn starts now.
	Hold(ctx context.Context, platform string, ev Event, started bool) (id int64, err error)
	// Start records that its turn began; Release forgets it.
	Start(ctx context.Context, id int64) error
	Release(ctx context.Context, id int64) error
	// Held returns what is held, oldest first.
	Held(ctx context.Context) ([]HeldEvent, error)
}

// HeldEvent is a message an Inbox held.
type HeldEvent struct {
	ID       int64
	Platform string
	Event    Event
	// Started is set when its turn had begun.
	Started bool
	// LostFiles names the files it came with: they were not kept.
	LostFiles []string
}

// storedEvent is what an Inbox keeps of a message: everything a turn
// needs but its media, whose download links a platform lets expire.
type storedEvent struct {
	ID        string    `json:"id"`
	Chat      Chat      `json:"chat"`
	User      User      `json:"user"`
	Received  time.Time `json:"received"`
	Text      string    `json:"text"`
	Addressed bool      `json:"addressed,omitempty"`
	MessageID string    `json:"message_id,omitempty"`
	// Files names the media the message came with, so the chat can be
	// asked to send them again.
	Files []string `json:"files,omitempty"`
}

// EncodeEvent is the form an Inbox stores a message in.
func EncodeEvent(ev Event) ([]byte, error) {
	s := storedEvent{ID: ev.ID, Chat: ev.Chat, User: ev.User, Received: ev.Received,
		Text: ev.Text, Addressed: ev.Addressed, MessageID: ev.MessageID}
	for _, m := range ev.Media {
		s.Files = append(s.Files, cmp.Or(m.Name, m.Kind))
	}
	return json.Marshal(s)
}

// DecodeEvent reads a message EncodeEvent stored, and the names of the
// files it came with, which were not kept.
func DecodeEvent(data []byte) (Event, []string, error) {
	var s storedEvent
	if err := json.Unmarshal(data, &s); err != nil {
		return Event{}, nil, fmt.Errorf("gateway: a held message is unreadable: %w", err)
	}
	return Event{ID: s.ID, Kind: KindMessage, Chat: s.Chat, User: s.User, Received: s.Received,
		Text: s.Text, Addressed: s.Addressed, MessageID: s.MessageID}, s.Files, nil
}

// queueTurn holds ev in the inbox and queues its turn in chat key. The
// held message is released when the turn is over, and kept when hermes
// stops first: a turn that never began runs at the next start, one cut
// off is reported to its chat then (running it again could repeat what
// its tools already did).
func (r *Runner) queueTurn(ctx context.Context, p Platform, ev Event, key, text string) {
	// A message to an idle chat starts its turn at once: it is held as
	// started, which saves the write that would say so a moment later,
	// on the way of every message. Should hermes stop in between, the
	// chat is told its message was cut off rather than having it run
	// twice: the safe side.
	now := !r.chats.busy(key)
	var held int64
	if t := ev.taken; t != nil && !t.used {
		// Held already when it was taken: its turn starts when it
		// leaves the queue.
		t.used, held, now = true, t.id, false
	} else {
		held = r.hold(ctx, p, ev, now)
	}
	r.chats.submit(key, false, func(ctx context.Context) {
		if ctx.Err() != nil && r.stopping() {
			return // hermes is stopping: the next start runs it
		}
		if !now {
			r.inboxDo(ctx, "start", held)
		}
		r.turn(ctx, p, ev, key, text)
		if !r.stopping() {
			r.inboxDo(ctx, "release", held)
		}
	})
}

// Taker is an Inbox that records a message's event as seen and holds the
// message in one step (gwstore.Store.Take). The gateway takes messages
// through it when it can: a process that dies between marking an event
// seen and holding its message would otherwise lose the message, its
// redelivery dropped as already seen.
type Taker interface {
	Take(ctx context.Context, platform string, ev Event) (id int64, first bool, err error)
}

// taken is a message held when it was taken; used is set once a turn
// took the hold over, or the message is released after it was handled.
type taken struct {
	id   int64
	used bool
}

// take takes a message through tk: a redelivery is dropped; otherwise
// the message is handled, and its hold released unless a turn took it.
func (r *Runner) take(ctx context.Context, p Platform, tk Taker, ev Event) error {
	id, first, err := tk.Take(ctx, p.Name(), ev)
	if err != nil {
		return err // not taken: the platform offers it again
	}
	if !first {
		r.log.Debug("gateway: redelivered event dropped", slog.String("platform", p.Name()), slog.String("event", ev.ID))
		return nil
	}
	if r.opt.Received != nil {
		r.opt.Received(p.Name())
	}
	t := &taken{id: id}
	ev.taken = t
	r.message(ctx, p, ev)
	if !t.used {
		r.inboxDo(ctx, "release", id)
	}
	return nil
}

// hold records ev in the inbox and returns its id, 0 when there is no
// inbox or it failed (the message is then answered all the same, only
// not across a restart).
func (r *Runner) hold(ctx context.Context, p Platform, ev Event, started bool) int64 {
	if r.opt.Inbox == nil {
		return 0
	}
	id, err := r.opt.Inbox.Hold(ctx, p.Name(), ev, started)
	if err != nil {
		r.log.Error("gateway: the message was not recorded; it is lost if hermes stops before answering it",
			slog.String("platform", p.Name()), slog.String("event", ev.ID), slog.String("error", err.Error()))
		return 0
	}
	return id
}

// inboxDo starts or releases held message id; 0 is none.
func (r *Runner) inboxDo(ctx context.Context, what string, id int64) {
	if id == 0 {
		return
	}
	do := r.opt.Inbox.Release
	if what == "start" {
		do = r.opt.Inbox.Start
	}
	if err := do(context.WithoutCancel(ctx), id); err != nil {
		r.log.Warn("gateway: held message "+what+" not recorded", slog.Int64("held", id), slog.String("error", err.Error()))
	}
}

// stopping reports whether the gateway is shutting down.
func (r *Runner) stopping() bool { return r.base != nil && r.base.Err() != nil }

// restartNotice tells a chat that the turn of its message was cut off.
const restartNotice = "hermes restarted while it was answering your message %q, so that answer was cut off. Send it again if you still need it."

// lostFilesNotice asks a chat for the files of a message held across a
// restart: their download links may have expired, so they were not kept.
const lostFilesNotice = "hermes restarted before it got to your message, and the files it came with (%s) were not kept. Send them again if you still need them."

// resume takes up what the inbox held when hermes stopped: messages that
// waited run now, in the order they came; chats whose turn was cut off
// are told.
func (r *Runner) resume(ctx context.Context) {
	if r.opt.Inbox == nil {
		return
	}
	held, err := r.opt.Inbox.Held(ctx)
	if err != nil {
		r.log.Error("gateway: the messages held at the last stop could not be read", slog.String("error", err.Error()))
		return
	}
	platforms := make(map[string]Platform, len(r.opt.Platforms))
	for _, p := range r.opt.Platforms {
		platforms[p.Name()] = p
	}
	for _, h := range held {
		p, ok := platforms[h.Platform]
		switch {
		case !ok:
			r.log.Warn("gateway: a held message's platform is not configured any more; it is dropped",
				slog.String("platform", h.Platform), slog.String("event", h.Event.ID))
		case h.Started:
			r.log.Info("gateway: a turn was cut off by the last stop", slog.String("platform", h.Platform), slog.String("event", h.Event.ID))
			r.reply(ctx, p, h.Event, "", fmt.Sprintf(restartNotice, clip(h.Event.Text, 80)))
		default:
			r.log.Info("gateway: running a message held at the last stop", slog.String("platform", h.Platform), slog.String("event", h.Event.ID))
			if len(h.LostFiles) > 0 {
				r.reply(ctx, p, h.Event, "", fmt.Sprintf(lostFilesNotice, strings.Join(h.LostFiles, ", ")))
			}
			if strings.TrimSpace(h.Event.Text) != "" {
				r.message(ctx, p, h.Event)
			}
		}
		// message held it again if it still needs a turn.
		r.inboxDo(ctx, "release", h.ID)
	}
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1]) + "…"
}

// adoptEvery takes over, every d until ctx ends, the messages held by
// processes that died since (Inbox.Held returns only those), running or
// answering them as at start.
func (r *Runner) adoptEvery(ctx context.Context, d time.Duration) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			r.resume(ctx)
		}
	}
}
