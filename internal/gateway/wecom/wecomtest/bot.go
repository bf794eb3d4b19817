package wecomtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/hermes-go/hermes/internal/clock"
)

// MaxStream is the most UTF-8 bytes a stream reply's content holds; the
// server refuses more (errcode 40058).
const MaxStream = 20480

// ReqTTL is how long an inbound message's req_id takes replies.
const ReqTTL = 5 * time.Minute

// BotOptions configure a Bot server; the zero value works.
type BotOptions struct {
	// BotID and Secret are the credentials aibot_subscribe must give.
	BotID  string
	Secret string
	// Clock ages req_ids; nil means the wall clock.
	Clock clock.Clock
}

// Bot is a fake of the AI bot's long connection: it speaks the
// cmd/req_id JSON protocol (aibot_subscribe, ping, aibot_msg_callback,
// aibot_respond_msg streams, aibot_send_msg), keeps one connection per
// bot as WeCom does, and has knobs for dropped connections, unanswered
// pings, redelivery and errcodes. Its methods are safe for concurrent
// use.
type Bot struct {
	// URL is the ws:// address to give the adapter.
	URL    string
	BotID  string
	Secret string

	http  *httptest.Server
	clock clock.Clock

	// changes wakes Wait.
	changes

	// framing is held while a command is done and answered, so Drop
	// falls between frames.
	framing sync.Mutex

	mu          sync.Mutex
	conn        *websocket.Conn
	subscribes  int
	pings       int
	ignorePings bool
	fails       []int
	nextMsg     int
	reqs        map[string]botReq
	pushed      map[string][]byte
	streams     map[string]*Stream
	order       []string
	proactive   []Proactive
	violations  []string
}

type botReq struct {
	chat string
	at   time.Time
}

// Stream is a stream reply as the user sees it: its latest content, and
// whether it was finished.
type Stream struct {
	ID       string
	ReqID    string
	Chat     string
	Content  string
	Finished bool
	Updates  int
}

// Proactive is a message the bot sent with aibot_send_msg.
type Proactive struct {
	Chat    string
	Content string
}

// BotIncoming is a message to the bot: from a member in a DM, or in the
// group Group.
type BotIncoming struct {
	// From is the member's userid ("alice" when empty).
	From  string
	Group string
	Text  string
}

// NewBot starts a Bot server on 127.0.0.1.
func NewBot(o BotOptions) *Bot {
	b := &Bot{BotID: o.BotID, Secret: o.Secret, clock: clock.OrReal(o.Clock),
		reqs: map[string]botReq{}, pushed: map[string][]byte{}, streams: map[string]*Stream{}}
	if b.BotID == "" {
		b.BotID = "aib-test-bot"
	}
	if b.Secret == "" {
		b.Secret = "bot-secret-0123456789abcdefghijklmnop"
	}
	b.http = httptest.NewServer(http.HandlerFunc(b.serve))
	b.URL = "ws" + strings.TrimPrefix(b.http.URL, "http")
	return b
}

// Close stops the server.
func (b *Bot) Close() {
	b.Drop()
	b.http.Close()
}

// Subscribes is how many subscriptions were taken; Pings how many pings
// came.
func (b *Bot) Subscribes() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.subscribes
}

// Pings is how many pings came.
func (b *Bot) Pings() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pings
}

// Connected reports whether a subscribed connection is up.
func (b *Bot) Connected() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.conn != nil
}

// Drop closes the connection without a word, as a network failure does.
// It falls between frames: a command already taken is answered first,
// so a reply the test has seen arrive was also confirmed to the adapter
// (a drop that swallows the confirmation is another failure, which
// hermes meets by sending again).
func (b *Bot) Drop() {
	b.framing.Lock()
	defer b.framing.Unlock()
	b.mu.Lock()
	c := b.conn
	b.conn = nil
	b.touch()
	b.mu.Unlock()
	if c != nil {
		c.CloseNow()
	}
}

// IgnorePings stops (or resumes) answering pings.
func (b *Bot) IgnorePings(ignore bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ignorePings = ignore
}

// FailNext makes the next replies (aibot_respond_msg, aibot_send_msg)
// answer these errcodes, one each.
func (b *Bot) FailNext(codes ...int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fails = append(b.fails, codes...)
}

// Streams returns the stream replies in chat, in the order they started.
func (b *Bot) Streams(chat string) []Stream {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Stream
	for _, id := range b.order {
		if s := b.streams[id]; s.Chat == chat {
			out = append(out, *s)
		}
	}
	return out
}

// Proactive returns the messages sent to chat with aibot_send_msg.
func (b *Bot) Proactive(chat string) []Proactive {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Proactive
	for _, p := range b.proactive {
		if p.Chat == chat {
			out = append(out, p)
		}
	}
	return out
}

// Violations returns what the client did that WeCom would refuse.
func (b *Bot) Violations() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.violations...)
}

// Message pushes a member's message to the subscribed connection as
// aibot_msg_callback and returns its msgid.
func (b *Bot) Message(ctx context.Context, in BotIncoming) (string, error) {
	if in.From == "" {
		in.From = "alice"
	}
	b.mu.Lock()
	b.nextMsg++
	msgID := fmt.Sprintf("msg-%d", b.nextMsg)
	reqID := fmt.Sprintf("req-callback-%d", b.nextMsg)
	body := map[string]any{"msgid": msgID, "aibotid": b.BotID, "chattype": "single",
		"from": map[string]string{"userid": in.From}, "msgtype": "text", "text": map[string]string{"content": in.Text}}
	chat := in.From
	if in.Group != "" {
		body["chattype"], body["chatid"], chat = "group", in.Group, in.Group
	}
	data, _ := json.Marshal(map[string]any{"cmd": "aibot_msg_callback", "headers": map[string]string{"req_id": reqID}, "body": body})
	b.reqs[reqID] = botReq{chat: chat, at: b.clock.Now()}
	b.pushed[msgID] = data
	b.mu.Unlock()
	return msgID, b.push(ctx, data)
}

// Redeliver pushes message msgID again, with its req_id.
func (b *Bot) Redeliver(ctx context.Context, msgID string) error {
	b.mu.Lock()
	data, ok := b.pushed[msgID]
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("wecomtest: no message %s was pushed", msgID)
	}
	return b.push(ctx, data)
}

func (b *Bot) push(ctx context.Context, data []byte) error {
	b.mu.Lock()
	c := b.conn
	b.mu.Unlock()
	if c == nil {
		return fmt.Errorf("wecomtest: the bot is not connected")
	}
	return c.Write(ctx, websocket.MessageText, data)
}
