package feishu

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// The long connection: instead of Feishu posting events to hermes,
// hermes opens a WebSocket to Feishu (an address from
// /callback/ws/endpoint, bought with the app's credentials) and Feishu
// sends the events down it as protobuf frames, each answered with an ack
// frame. It needs no public address. Frames come in order; a payload too
// big for one frame comes in parts (sum, seq) put together again here.

// clientConfig is what Feishu tells the client about reconnecting and
// pinging, in seconds.
type clientConfig struct {
	ReconnectCount    int `json:"ReconnectCount"`
	ReconnectInterval int `json:"ReconnectInterval"`
	ReconnectNonce    int `json:"ReconnectNonce"`
	PingInterval      int `json:"PingInterval"`
}

// Feishu's defaults, until it says otherwise.
var defaultClientConfig = clientConfig{ReconnectCount: -1, ReconnectInterval: 120, ReconnectNonce: 30, PingInterval: 120}

// fatalError is a failure reconnecting cannot mend: credentials refused,
// the app banned, too many connections.
type fatalError struct{ msg string }

func (e *fatalError) Error() string { return e.msg }

// The endpoint's and the handshake's codes.
const (
	endpointBusy     = 1
	endpointInternal = 1000040343
	handshakeAuth    = 514
	handshakeBanned  = 403
	tooManyConns     = 1000040350
)

// maxFrame bounds one frame; events are a few KB, fragments smaller.
const maxFrame = 4 << 20

// receiveLong is Receive over the long connection: it connects, takes
// frames until the connection drops, and connects again as Feishu's
// client config says (a random wait up to ReconnectNonce first, then
// every ReconnectInterval), until ctx ends or a failure is fatal.
func (a *Adapter) receiveLong(ctx context.Context) error {
	cfg := defaultClientConfig
	for attempt := 0; ; attempt++ {
		connected, err := a.connectLong(ctx, &cfg)
		if ctx.Err() != nil {
			return nil
		}
		var fatal *fatalError
		if errors.As(err, &fatal) {
			return err
		}
		if connected {
			attempt = 0
		}
		wait := max(time.Duration(cfg.ReconnectInterval)*time.Second, time.Second)
		if attempt == 0 {
			wait = 0
			if cfg.ReconnectNonce > 0 {
				wait = time.Duration(rand.Int64N(int64(cfg.ReconnectNonce) * int64(time.Second)))
			}
		}
		if cfg.ReconnectCount >= 0 && attempt >= cfg.ReconnectCount && !connected {
			return fmt.Errorf("feishu: the long connection failed %d times: %w", attempt+1, err)
		}
		a.log.Warn("feishu: the long connection dropped; connecting again", "err", err, "retry_in", wait)
		if a.clock.Sleep(ctx, wait) != nil {
			return nil
		}
	}
}

// connectLong makes one connection and serves it until it drops; it
// reports whether it connected at all.
func (a *Adapter) connectLong(ctx context.Context, cfg *clientConfig) (bool, error) {
	addr, serviceID, err := a.endpoint(ctx, cfg)
	if err != nil {
		return false, err
	}
	conn, resp, err := websocket.Dial(ctx, addr, &websocket.DialOptions{HTTPClient: a.client})
	if err != nil {
		return false, handshakeError(resp, err, addr)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(maxFrame)
	a.log.Info("feishu: the long connection is open")
	lc := &longConn{a: a, conn: conn, service: serviceID, parts: map[string][][]byte{}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lc.pingEvery.Store(int64(cfg.PingInterval))
	go lc.ping(ctx)
	return true, lc.read(ctx, cfg)
}

// endpoint asks Feishu where to connect.
func (a *Adapter) endpoint(ctx context.Context, cfg *clientConfig) (string, int32, error) {
	var out struct {
		URL          string        `json:"URL"`
		ClientConfig *clientConfig `json:"ClientConfig"`
	}
	body := map[string]string{"AppID": a.appID, "AppSecret": a.appSecret}
	err := a.do(ctx, http.MethodPost, "/callback/ws/endpoint", "", body, &out)
	var ae *apiError
	switch {
	case errors.As(err, &ae) && ae.Code != endpointBusy && ae.Code != endpointInternal && ae.Status/100 != 5:
		return "", 0, &fatalError{msg: fmt.Sprintf("feishu: the long connection was refused (check app_id and app_secret, and that the app subscribes to events by long connection): %v", err)}
	case err != nil:
		return "", 0, err
	}
	if out.ClientConfig != nil {
		*cfg = *out.ClientConfig
	}
	u, err := url.Parse(out.URL)
	if err != nil || (u.Scheme != "wss" && u.Scheme != "ws") {
		return "", 0, fmt.Errorf("feishu: the long connection's address is not a WebSocket URL")
	}
	service, _ := strconv.ParseInt(u.Query().Get("service_id"), 10, 32)
	return out.URL, int32(service), nil
}

// handshakeError reads why Feishu refused the WebSocket: its
// Handshake-Status, -Msg and -Autherrcode headers. The address's query
// holds the connection's ticket, which is left out.
func handshakeError(resp *http.Response, err error, addr string) error {
	if resp == nil {
		msg := err.Error()
		if i := strings.IndexByte(addr, '?'); i >= 0 {
			msg = strings.ReplaceAll(msg, addr[i:], "")
		}
		return fmt.Errorf("feishu: opening the long connection: %s", msg)
	}
	status, _ := strconv.Atoi(resp.Header.Get("Handshake-Status"))
	auth, _ := strconv.Atoi(resp.Header.Get("Handshake-Autherrcode"))
	msg := fmt.Sprintf("feishu: the long connection was refused (HTTP %d, handshake status %d, %s)", resp.StatusCode, status, resp.Header.Get("Handshake-Msg"))
	if status == handshakeBanned || (status == handshakeAuth && auth == tooManyConns) {
		return &fatalError{msg: msg + "; at most a few connections per app are allowed"}
	}
	return errors.New(msg)
}
