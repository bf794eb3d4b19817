package wecom

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// Stream timings.
const (
	// reqTTL is how long a message's req_id takes replies (about five
	// minutes, as observed); after it hermes sends proactively.
	reqTTL = 4 * time.Minute
	// finishAfter is the quiet spell after which a reply's stream is
	// finished: the gateway does not say when a reply is complete.
	finishAfter = 10 * time.Second
	// finishTries bounds the attempts to finish a reply that WeCom keeps
	// refusing for now.
	finishTries = 6
)

// stream is one reply as the gateway sees it (one MessageRef). While the
// message it answers can be answered, the reply is shown as a WeCom
// stream, sent again whole at every edit. Text that comes after that
// stream was finished (for quiet) goes on in a new stream from where the
// first stopped; once the message is too old to answer, the text not yet
// shown is sent proactively when the reply goes quiet. Either way nothing
// is lost or shown twice.
type stream struct {
	mu    sync.Mutex
	chat  gateway.Chat
	reqID string
	// at is when the message it answers came.
	at time.Time
	// id is the id the gateway holds in its MessageRef.
	id string
	// text is the whole reply; text[:from] is shown and finished; wid
	// is the WeCom stream showing the rest, "" when none is open.
	text string
	from int
	wid  string
	// done is set when nothing is open or waiting to be sent.
	done  bool
	tries int
	timer clock.Timer
}

// Send starts a reply in chat, after finishing the chat's previous one:
// a stream answering the chat's latest message, or a markdown message
// sent proactively when that message is too old to answer. Files are
// named, not attached.
func (b *Bot) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	m.Text = withFileNames(m)
	if strings.TrimSpace(m.Text) == "" {
		return gateway.MessageRef{Chat: chat}, nil
	}
	if err := fits(m.Text); err != nil {
		return gateway.MessageRef{}, err
	}
	b.mu.Lock()
	c, prev := b.conn, b.streams[chat.ID]
	in := b.lastReq[chat.ID]
	b.mu.Unlock()
	if c == nil {
		return gateway.MessageRef{}, errDown
	}
	if prev != nil {
		b.finish(ctx, prev)
	}
	st := &stream{chat: chat, reqID: in.reqID, at: in.at, id: b.streamID(), text: m.Text}
	st.mu.Lock()
	defer st.mu.Unlock()
	if b.expired(st) {
		if err := b.proactive(ctx, c, chat, m.Text); err != nil {
			return gateway.MessageRef{}, err
		}
		st.from, st.done = len(m.Text), true
	} else {
		st.wid = st.id
		if err := b.respond(ctx, c, st, false); err != nil {
			return gateway.MessageRef{}, err
		}
	}
	st.timer = b.clock.AfterFunc(finishAfter, b.finishQuiet(st))
	b.mu.Lock()
	b.streams[chat.ID] = st
	b.mu.Unlock()
	return gateway.MessageRef{Chat: chat, ID: st.id}, nil
}

// Edit shows m as the whole of the reply ref; only the chat's latest
// reply can be edited.
func (b *Bot) Edit(ctx context.Context, ref gateway.MessageRef, m gateway.Outgoing) error {
	if err := fits(m.Text); err != nil {
		return err
	}
	b.mu.Lock()
	st, c := b.streams[ref.Chat.ID], b.conn
	b.mu.Unlock()
	if st == nil || st.id != ref.ID {
		return gateway.ErrCannotEdit
	}
	if c == nil {
		return errDown
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if m.Text == st.text {
		return nil
	}
	old, oldFrom := st.text, st.from
	if !strings.HasPrefix(m.Text, st.text[:st.from]) {
		// What was shown changed: show all of it again.
		st.from, st.wid = 0, ""
	}
	st.text, st.done, st.tries = m.Text, false, 0
	st.timer.Reset(finishAfter)
	if b.expired(st) {
		return nil // sent proactively when the reply goes quiet
	}
	if st.wid == "" {
		st.wid = b.streamID()
	}
	if err := b.respond(ctx, c, st, false); err != nil {
		st.text, st.from = old, oldFrom
		return err
	}
	return nil
}

// finishQuiet returns the timer callback that finishes st after a quiet
// spell.
func (b *Bot) finishQuiet(st *stream) func() {
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), answerTimeout)
		defer cancel()
		b.finish(ctx, st)
	}
}

// finish finishes st: its open stream is sent with finish set, or, when
// its message is too old to answer, the text not yet shown is sent
// proactively. A refusal for now (a rate limit, the connection down) is
// tried again later, a few times.
func (b *Bot) finish(ctx context.Context, st *stream) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return
	}
	b.mu.Lock()
	c := b.conn
	b.mu.Unlock()
	var err error = errDown
	if c != nil {
		err = b.flush(ctx, c, st)
	}
	var se *gateway.SendError
	if err != nil && errors.As(err, &se) && se.Kind != gateway.Permanent && st.tries+1 < finishTries {
		st.tries++
		st.timer.Reset(max(se.RetryAfter, finishAfter))
		return
	}
	st.done = true
	st.timer.Stop()
	if err != nil {
		b.log.Warn("wecom bot: the end of a reply was not delivered", "chat", st.chat.ID, "bytes", len(st.text)-st.from, "err", err)
	}
}

// flush delivers what st has not finished showing.
func (b *Bot) flush(ctx context.Context, c *botConn, st *stream) error {
	if b.expired(st) {
		if rest := st.text[st.from:]; strings.TrimSpace(rest) != "" {
			if err := b.proactive(ctx, c, st.chat, rest); err != nil {
				return err
			}
		}
	} else if st.wid != "" {
		if err := b.respond(ctx, c, st, true); err != nil {
			return err
		}
	}
	st.from, st.wid = len(st.text), ""
	return nil
}

// expired reports whether st's message is too old to answer.
func (b *Bot) expired(st *stream) bool {
	return st.reqID == "" || b.clock.Now().Sub(st.at) > reqTTL
}

// respond sends st's open stream; st.mu is held.
func (b *Bot) respond(ctx context.Context, c *botConn, st *stream, finish bool) error {
	body := map[string]any{"msgtype": "stream", "stream": map[string]any{"id": st.wid, "content": st.text[st.from:], "finish": finish}}
	if err := c.call(ctx, "aibot_respond_msg", st.reqID, body); err != nil {
		return classify(err, st.chat.ID, &b.limits, b.log)
	}
	b.limits.clear(st.chat.ID)
	return nil
}

// proactive sends text to chat as markdown, answering no message.
func (b *Bot) proactive(ctx context.Context, c *botConn, chat gateway.Chat, text string) error {
	body := map[string]any{"chatid": chat.ID, "msgtype": "markdown", "markdown": map[string]string{"content": text}}
	if err := c.call(ctx, "aibot_send_msg", newReqID("aibot_send_msg"), body); err != nil {
		return classify(err, chat.ID, &b.limits, b.log)
	}
	b.limits.clear(chat.ID)
	return nil
}

// finished reports whether st is finished.
func (st *stream) finished() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.done
}

// finishAll finishes every open reply, when hermes stops.
func (b *Bot) finishAll(ctx context.Context) {
	b.mu.Lock()
	open := make([]*stream, 0, len(b.streams))
	for _, st := range b.streams {
		open = append(open, st)
	}
	b.mu.Unlock()
	for _, st := range open {
		b.finish(ctx, st)
	}
}

// errDown is a send while the long connection is being re-established.
var errDown = &gateway.SendError{Kind: gateway.Temporary, Message: "the WeCom long connection is down; reconnecting"}

// fits refuses text longer than a stream holds.
func fits(text string) error {
	if n := len(text); n > MaxStream {
		return &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("the text is %d bytes; a WeCom stream holds %d", n, MaxStream)}
	}
	return nil
}

// streamID returns a new stream id.
func (b *Bot) streamID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	return "hermes-" + strconv.FormatInt(b.clock.Now().UnixNano(), 36) + "-" + strconv.Itoa(b.nextID)
}
