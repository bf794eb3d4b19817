package wecom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// DefaultWSURL is the AI bot's long-connection address.
const DefaultWSURL = "wss://openws.work.weixin.qq.com"

// MaxStream is the most UTF-8 bytes a stream reply holds.
const MaxStream = 20480

// The long connection's timings.
const (
	// pingEvery is WeCom's app-level heartbeat: a ping every 30 s, and a
	// socket whose ping went unanswered by the next one is dead.
	pingEvery = 30 * time.Second
	// minBackoff and maxBackoff bound the wait before reconnecting.
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
	// finishOnStop bounds finishing the open replies when hermes stops.
	finishOnStop = 3 * time.Second
)

// BotOptions configure a Bot.
type BotOptions struct {
	// BotID and Secret are the AI bot's long-connection credentials.
	BotID  string
	Secret string
	// WSURL is the long connection's address; "" means DefaultWSURL.
	WSURL string
	// Logger gets what the adapter has to say; nil means slog.Default().
	Logger *slog.Logger
	// Clock times pings, backoffs and finishing streams; nil means the
	// wall clock.
	Clock clock.Clock
}

// Bot is a WeCom AI bot (智能机器人) on the long connection. Its replies
// stream: a reply is one stream message, sent again with all its text
// as it grows, and finished when the next reply to the chat starts or
// after a quiet spell. Its methods are safe for concurrent use.
type Bot struct {
	id, secret, url string
	log             *slog.Logger
	clock           clock.Clock
	limits          limits

	mu   sync.Mutex
	conn *botConn
	// lastReq is, by chat, the req_id of the chat's latest message:
	// replies go with it.
	lastReq map[string]inbound
	streams map[string]*stream
	nextID  int
}

// inbound is a message's req_id and when it came.
type inbound struct {
	reqID string
	at    time.Time
}

// NewBot checks o and returns a Bot; it connects in Receive.
func NewBot(o BotOptions) (*Bot, error) {
	if o.BotID == "" {
		return nil, errors.New("wecom: the bot's bot_id is empty; give the Bot ID shown with the AI bot's long-connection settings")
	}
	if o.Secret == "" {
		return nil, errors.New("wecom: the bot's secret is empty; give the Secret shown with the AI bot's long-connection settings")
	}
	u, err := baseURL(o.WSURL, DefaultWSURL, "wss", "ws")
	if err != nil {
		return nil, err
	}
	b := &Bot{id: o.BotID, secret: o.Secret, url: u, log: o.Logger, clock: clock.OrReal(o.Clock),
		lastReq: map[string]inbound{}, streams: map[string]*stream{}}
	if b.log == nil {
		b.log = slog.Default()
	}
	b.log = b.log.With("platform", "wecombot")
	return b, nil
}

// Name returns "wecombot".
func (b *Bot) Name() string { return "wecombot" }

// Caps returns the bot's limits: 20480 bytes a stream, edits (the stream
// sent again), no buttons, and a pace of one update a second per chat.
func (b *Bot) Caps() gateway.Caps {
	return gateway.Caps{MaxText: MaxStream, CanEdit: true, SendEvery: time.Second}
}

// Answer does nothing: the bot's messages carry no buttons here.
func (b *Bot) Answer(context.Context, gateway.Event, string) error { return nil }

// Typing does nothing: a stream shows that the reply is being written.
func (b *Bot) Typing(context.Context, gateway.Chat) error { return nil }

// Receive keeps the long connection up until ctx ends: it connects,
// subscribes, hands each message to deliver, pings, and reconnects with
// a growing wait when the connection drops or a ping goes unanswered.
// It stops for good when WeCom refuses the bot id and secret.
func (b *Bot) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	backoff := time.Duration(0)
	for {
		subscribed, err := b.session(ctx, deliver)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errRefused) {
			return err
		}
		if subscribed {
			backoff = 0
		}
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		b.log.Warn("wecom bot: the long connection dropped; reconnecting", "err", err, "retry_in", backoff)
		if b.clock.Sleep(ctx, backoff) != nil {
			return nil
		}
	}
}

// session is one connection: it returns why it ended and whether it got
// as far as a subscription.
func (b *Bot) session(ctx context.Context, deliver func(context.Context, gateway.Event) error) (bool, error) {
	dctx, cancel := context.WithTimeout(ctx, answerTimeout)
	ws, _, err := websocket.Dial(dctx, b.url, nil)
	cancel()
	if err != nil {
		return false, fmt.Errorf("wecom bot: connecting: %w", err)
	}
	defer ws.CloseNow()
	c := newBotConn(ws)
	defer c.close()
	// The reader outlives ctx by a little: replies still open are
	// finished after hermes is told to stop, and their answers must be
	// read.
	sctx, stop := context.WithCancel(context.Background())
	defer stop()
	callbacks := make(chan frame, 16)
	readErr := make(chan error, 1)
	go func() {
		for {
			_, data, err := ws.Read(sctx)
			if err != nil {
				readErr <- err
				c.close() // no answer will come: end every wait
				return
			}
			var f frame
			if err := json.Unmarshal(data, &f); err != nil {
				b.log.Warn("wecom bot: a frame that is not JSON was skipped", "bytes", len(data))
				continue
			}
			if f.Cmd == "" || f.ErrCode != nil {
				if !c.answer(f) {
					b.log.Debug("wecom bot: an answer nobody waited for", "req_id", f.Headers.ReqID)
				}
				continue
			}
			select {
			case callbacks <- f:
			case <-sctx.Done():
				return
			}
		}
	}()
	err = c.call(ctx, "aibot_subscribe", newReqID("aibot_subscribe"), map[string]string{"bot_id": b.id, "secret": b.secret})
	var ae *apiError
	if errors.As(err, &ae) {
		b.log.Error("wecom bot: the long connection refused the bot; check gateway.wecom.bot.bot_id and secret", "errcode", ae.Code, "errmsg", ae.Message)
		return false, fmt.Errorf("%w (errcode %d %s)", errRefused, ae.Code, ae.Message)
	}
	if err != nil {
		return false, err
	}
	b.log.Info("wecom bot: connected")
	b.setConn(c)
	defer b.setConn(nil)
	return true, b.serve(ctx, c, callbacks, readErr, deliver)
}

// serve reads callbacks and pings until the connection ends.
func (b *Bot) serve(ctx context.Context, c *botConn, callbacks <-chan frame, readErr <-chan error,
	deliver func(context.Context, gateway.Event) error) error {
	ping := b.clock.NewTimer(pingEvery)
	defer ping.Stop()
	var pong chan error
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), finishOnStop)
			b.finishAll(fctx)
			cancel()
			c.ws.Close(websocket.StatusNormalClosure, "hermes stops")
			return ctx.Err()
		case err := <-readErr:
			return err
		case f := <-callbacks:
			b.callback(ctx, f, deliver)
		case <-ping.C():
			if pong != nil {
				select {
				case err := <-pong:
					if err != nil {
						return fmt.Errorf("wecom bot: ping: %w", err)
					}
				default:
					return errors.New("wecom bot: the last ping was not answered; the connection is dead")
				}
			}
			pong = make(chan error, 1)
			go func(done chan<- error) {
				done <- c.call(ctx, "ping", newReqID("ping"), struct{}{})
			}(pong)
			ping.Reset(pingEvery)
		}
	}
}

func (b *Bot) setConn(c *botConn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.conn = c
}

var _ gateway.Platform = (*Bot)(nil)
