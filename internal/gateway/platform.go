// Package gateway lets people talk to hermes from chat platforms: each
// platform's adapter (gateway/<platform>) turns what arrives into Events
// and sends what hermes says back; the gateway authorizes the sender,
// finds the session, runs the turn through the engine and paces the
// replies to the platform's limits.
//
// The rules every adapter follows come from how chat platforms behave
// (PLATFORMS.md §0): an inbound event is acknowledged at once and worked
// on later; every inbound is deduplicated by its platform id, because
// redelivery is normal; sends are paced per destination and a platform's
// "retry after" holds every queued send to that chat; a rate limit is
// never mistaken for a formatting error; and a reply that cannot be sent
// is stored and logged, never dropped.
package gateway

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Platform is one chat platform's adapter. Its methods are safe for
// concurrent use.
type Platform interface {
	// Name is the platform's name in configuration ("telegram").
	Name() string
	// Caps says what the platform can do and its limits.
	Caps() Caps
	// Receive connects and hands every inbound event to deliver, in the
	// order they arrive, until ctx ends or the connection fails for
	// good. deliver returns quickly (the gateway only records and queues
	// the event); an event whose deliver returned an error has not been
	// taken and must be offered again (for Telegram: its update is not
	// confirmed).
	Receive(ctx context.Context, deliver func(context.Context, Event) error) error
	// Send sends m to chat and returns a reference to the message, for
	// Edit. A failure is a *SendError.
	Send(ctx context.Context, chat Chat, m Outgoing) (MessageRef, error)
	// Edit replaces a message sent earlier; platforms that cannot edit
	// return ErrCannotEdit. A failure is a *SendError; an edit that
	// changes nothing succeeds.
	Edit(ctx context.Context, ref MessageRef, m Outgoing) error
	// Answer acknowledges a button press (Telegram's
	// answerCallbackQuery), with a short text the platform may show.
	Answer(ctx context.Context, ev Event, text string) error
	// Typing shows that a reply is being written, where the platform
	// can; it lasts a few seconds.
	Typing(ctx context.Context, chat Chat) error
}

// Caps are a platform's abilities and limits.
type Caps struct {
	// MaxText is the longest text one message may carry, in the unit
	// Measure counts (Telegram: 4096 UTF-16 code units).
	MaxText int
	// Measure counts text in the platform's unit; nil counts bytes.
	Measure func(string) int
	// CanEdit is set when Edit works, so replies can stream.
	CanEdit bool
	// Buttons is set when messages can carry buttons.
	Buttons bool
	// MaxButtonData is the most bytes a button's data may hold
	// (Telegram: 64).
	MaxButtonData int
	// SendEvery is the pace of sends and edits to one chat (Telegram:
	// about one per second).
	SendEvery time.Duration
	// FinalOnly is set where every message is a notification a person
	// reads one by one (email): a reply then carries only the turn's
	// last text, not what the model said between tool calls, because a
	// long task would otherwise send a mail per step (100–200 status
	// mails per task were reported against another agent). Approval
	// requests and hermes's own notices still go out.
	FinalOnly bool
	// OneConsumer is set where the platform gives its events to one
	// receiver at a time: a second Telegram long poll ends the first
	// with 409, Discord's gateway allows one session per bot, Slack's
	// Socket Mode is kept to one connection per app, and IMAP polls of
	// one mailbox race for the same mail. With several replicas sharing a database, only the one that
	// leads the platform's name receives (Options.Elector); platforms
	// whose events come as webhooks are received by every replica.
	OneConsumer bool
}

// EventKind says what an Event is.
type EventKind int

// The kinds of inbound events.
const (
	// KindMessage is a message someone wrote.
	KindMessage EventKind = iota + 1
	// KindButton is a press of a button hermes sent.
	KindButton
)

// ChatType tells direct messages from groups.
type ChatType int

// The types of chat.
const (
	// DM is a one-to-one chat with the bot.
	DM ChatType = iota + 1
	// Group is a chat of several people (a group, supergroup, channel
	// or mailing thread).
	Group
)

// Chat is where a message was written and where replies go.
type Chat struct {
	// ID is the platform's chat id (Telegram's chat id, an email
	// thread's root Message-ID).
	ID   string
	Type ChatType
	// Thread is a topic or thread inside the chat, "" for none (and for
	// Telegram's General topic, which is addressed without one).
	Thread string
}

// User is who wrote a message or pressed a button.
type User struct {
	// ID is the platform's stable user id (Telegram's user id, an email
	// address).
	ID string
	// Name is how the user is shown, for logs and the model.
	Name string
}

// Media is a file that came with a message. Fetch downloads it; the
// gateway decides whether to (size caps) and where it goes.
type Media struct {
	// Kind is "photo", "document", "voice" ...
	Kind string
	Name string
	MIME string
	// Size is the size the platform announced, 0 when unknown.
	Size  int64
	Fetch func(ctx context.Context) (io.ReadCloser, error)
}

// Event is one inbound event.
type Event struct {
	// ID is unique per platform and the same on redelivery (Telegram's
	// update_id, an email's Message-ID): the gateway handles an ID once.
	ID       string
	Kind     EventKind
	Chat     Chat
	User     User
	Received time.Time
	// Text is the message's text (a caption for media), with the bot's
	// mention left in.
	Text string
	// Addressed is set when a group message is meant for the bot: it
	// mentions the bot, replies to one of its messages, or is a command
	// to it. Direct messages are always addressed.
	Addressed bool
	// MessageID is the platform's id of the message, to reply to it.
	MessageID string
	Media     []Media
	// Data is a pressed button's data; Ref is the message it was on.
	Data string
	Ref  MessageRef
	// Raw is the platform's own id for answering the event (Telegram's
	// callback_query id).
	Raw string

	// taken is the inbox's hold of a message taken with its seen mark
	// (see Taker), for its turn to use.
	taken *taken
}

// Outgoing is a message hermes sends.
type Outgoing struct {
	// Text is Markdown as the model writes it; the adapter renders it in
	// the platform's format. It fits Caps.MaxText (the gateway splits).
	Text string
	// Buttons are rows of buttons, where Caps.Buttons.
	Buttons [][]Button
	// ReplyTo is the message this one answers, "" for none.
	ReplyTo string
	// Files are local files to attach.
	Files []string
}

// Button is one button: what it says and the data a press sends back
// (at most Caps.MaxButtonData bytes).
type Button struct {
	Text string
	Data string
}

// MessageRef identifies a message hermes sent, for edits.
type MessageRef struct {
	Chat Chat
	ID   string
}

// Error is an error the gateway reports as it is. Its values are
// constants, so the package builds nothing at start-up.
type Error string

func (e Error) Error() string { return string(e) }

// ErrCannotEdit is returned by Edit on platforms that cannot edit.
const ErrCannotEdit = Error("gateway: this platform cannot edit messages")

// SendFailure classifies a failed send, because each calls for something
// else: waiting, resending as plain text, retrying, or giving up.
type SendFailure int

// The kinds of send failure.
const (
	// RateLimited: the platform asked to wait (RetryAfter); every queued
	// send to the chat waits too.
	RateLimited SendFailure = iota + 1
	// BadFormat: the platform could not parse the formatted text; a
	// plain-text resend is right (and only here).
	BadFormat
	// Temporary: a timeout, a connection reset or a 5xx; retry.
	Temporary
	// Permanent: anything else (the chat is gone, the bot was blocked,
	// the message is too long); do not retry.
	Permanent
)

func (f SendFailure) String() string {
	switch f {
	case RateLimited:
		return "rate limited"
	case BadFormat:
		return "bad format"
	case Temporary:
		return "temporary"
	case Permanent:
		return "permanent"
	}
	return fmt.Sprintf("SendFailure(%d)", int(f))
}

// SendError is a failed Send or Edit.
type SendError struct {
	Kind SendFailure
	// RetryAfter is how long the platform asked to wait, for RateLimited.
	RetryAfter time.Duration
	// Message is the platform's description, for logs.
	Message string
	Err     error
}

func (e *SendError) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if e.Kind == RateLimited && e.RetryAfter > 0 {
		return fmt.Sprintf("send failed (%s, retry after %s): %s", e.Kind, e.RetryAfter, msg)
	}
	return fmt.Sprintf("send failed (%s): %s", e.Kind, msg)
}

func (e *SendError) Unwrap() error { return e.Err }
