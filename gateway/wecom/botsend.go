package wecom

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/internal/clock"
)

// Stream timings.
const (
	// reqTTL is how long a message's req_id takes replies (about five
	// minutes, as observed); after it hermes sends proactively.
	reqTTL = 4 * time.Minute
	// finishAfter is the quiet spell after which a reply's stream is
	// finished: the gateway does not say when a reply is complete.
	finishAfter = 10 * time.Second
)

// stream is one reply as the gateway sees it (one MessageRef). It is
// shown as a WeCom stream; if more text comes after that stream was
// finished for quiet, the rest goes on in a new stream from where the
// first one stopped, so nothing is lost or shown twice.
type stream struct {
	mu    sync.Mutex
	chat  gateway.Chat
	reqID string
	// at is when the message it answers came.
	at time.Time
	// firstID is the id the gateway holds in its MessageRef.
	firstID string
	// wid is the current WeCom stream's id; offset is where its text
	// starts in the reply; text is the whole reply so far.
	wid    string
	offset int
	text   string
	done   bool
	timer  clock.Timer
}

// Send starts a reply in chat: a stream answering the chat's latest
// message, or, when that message is too old to answer, a markdown
// message sent proactively (which cannot be edited). The chat's previous
// reply is finished first.
func (b *Bot) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	if n := len(m.Text); n > MaxStream {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.Permanent,
			Message: fmt.Sprintf("the text is %d bytes; a WeCom stream holds %d", n, MaxStream)}
	}
	b.mu.Lock()
	c, prev := b.conn, b.streams[chat.ID]
	in, ok := b.lastReq[chat.ID]
	b.mu.Unlock()
	if c == nil {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.Temporary, Message: "the long connection is down; reconnecting"}
	}
	if prev != nil {
		b.finish(ctx, prev)
	}
	if !ok || b.clock.Now().Sub(in.at) > reqTTL {
		body := map[string]any{"chatid": chat.ID, "msgtype": "markdown", "markdown": map[string]string{"content": m.Text}}
		if err := c.call(ctx, "aibot_send_msg", newReqID("aibot_send_msg"), body); err != nil {
			return gateway.MessageRef{}, classify(err, chat.ID, &b.limits, b.log)
		}
		b.limits.clear(chat.ID)
		return gateway.MessageRef{Chat: chat}, nil
	}
	st := &stream{chat: chat, reqID: in.reqID, at: in.at, wid: b.streamID(), text: m.Text}
	st.firstID = st.wid
	if err := b.respond(ctx, c, st, false); err != nil {
		return gateway.MessageRef{}, err
	}
	st.timer = b.clock.AfterFunc(finishAfter, b.finishQuiet(st))
	b.mu.Lock()
	b.streams[chat.ID] = st
	b.mu.Unlock()
	return gateway.MessageRef{Chat: chat, ID: st.wid}, nil
}

// Edit shows m as the whole of the reply ref.
func (b *Bot) Edit(ctx context.Context, ref gateway.MessageRef, m gateway.Outgoing) error {
	b.mu.Lock()
	st, c := b.streams[ref.Chat.ID], b.conn
	b.mu.Unlock()
	if ref.ID == "" || st == nil || !st.is(ref.ID) {
		return gateway.ErrCannotEdit
	}
	if c == nil {
		return &gateway.SendError{Kind: gateway.Temporary, Message: "the long connection is down; reconnecting"}
	}
	if len(m.Text) > MaxStream {
		return &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("the text is %d bytes; a WeCom stream holds %d", len(m.Text), MaxStream)}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if m.Text == st.text {
		return nil
	}
	if st.done {
		// Finished for quiet, and more came: go on in a new stream.
		st.offset = 0
		if strings.HasPrefix(m.Text, st.text) {
			st.offset = len(st.text)
		}
		st.wid, st.done = b.streamID(), false
		st.timer = b.clock.AfterFunc(finishAfter, b.finishQuiet(st))
	}
	old := st.text
	st.text = m.Text
	if err := b.respondLocked(ctx, c, st, false); err != nil {
		st.text = old
		return err
	}
	st.timer.Reset(finishAfter)
	return nil
}

// is reports whether id names this reply (its first stream's id, which
// the gateway holds).
func (st *stream) is(id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.firstID == id
}

// finished reports whether st's stream is finished.
func (st *stream) finished() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.done
}

// respond sends st's text as its stream.
func (b *Bot) respond(ctx context.Context, c *botConn, st *stream, finish bool) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return b.respondLocked(ctx, c, st, finish)
}

func (b *Bot) respondLocked(ctx context.Context, c *botConn, st *stream, finish bool) error {
	body := map[string]any{"msgtype": "stream", "stream": map[string]any{"id": st.wid, "content": st.text[st.offset:], "finish": finish}}
	if err := c.call(ctx, "aibot_respond_msg", st.reqID, body); err != nil {
		return classify(err, st.chat.ID, &b.limits, b.log)
	}
	b.limits.clear(st.chat.ID)
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

// finish sends st's last text with finish set, once.
func (b *Bot) finish(ctx context.Context, st *stream) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return
	}
	b.mu.Lock()
	c := b.conn
	b.mu.Unlock()
	if c == nil {
		// Reconnecting: try again later, while the message can still
		// be answered.
		if b.clock.Now().Sub(st.at) < reqTTL {
			st.timer.Reset(finishAfter)
		} else {
			st.done = true
		}
		return
	}
	err := b.respondLocked(ctx, c, st, true)
	var se *gateway.SendError
	if err != nil && errors.As(err, &se) && se.Kind != gateway.Permanent && b.clock.Now().Sub(st.at) < reqTTL {
		// Rate limited or a passing failure: finish it later.
		st.timer.Reset(max(se.RetryAfter, finishAfter))
		return
	}
	st.done = true
	st.timer.Stop()
	if err != nil {
		b.log.Warn("wecom bot: a reply's stream was not finished; WeCom ends it by itself", "err", err)
	}
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

// streamID returns a new stream id.
func (b *Bot) streamID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	return "hermes-" + strconv.FormatInt(b.clock.Now().UnixNano(), 36) + "-" + strconv.Itoa(b.nextID)
}
