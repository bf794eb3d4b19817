package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/llm/sse"
)

// Timeouts bounds the phases of a model call. A zero field means no limit.
type Timeouts struct {
	// Connect bounds dialing and the TLS handshake.
	Connect time.Duration
	// FirstByte bounds the wait from sending the request to the first byte
	// of the response body. Non-streaming calls wait here for the whole
	// generation, so keep it generous.
	FirstByte time.Duration
	// Idle bounds the silence between two reads of a streamed body; a
	// stream that stalls longer is cut and reported as a network error,
	// which the retry layer retries.
	Idle time.Duration
}

// DefaultTimeouts are used when a provider is configured without any.
var DefaultTimeouts = Timeouts{Connect: 15 * time.Second, FirstByte: 300 * time.Second, Idle: 120 * time.Second}

// NewHTTPClient returns an HTTP client for model calls: proxies from the
// environment, keep-alive, HTTP/2 when the server offers it, and the connect
// timeout of t. The other timeouts are applied per call by Send.
func NewHTTPClient(t Timeouts) *http.Client {
	d := &net.Dialer{Timeout: t.Connect, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   t.Connect,
		ExpectContinueTimeout: time.Second,
	}}
}

// timeoutError is the cancellation cause recorded when a watchdog fires.
type timeoutError struct {
	phase string
	after time.Duration
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s timeout: no data from the server for %s", e.phase, e.after)
}

// Send performs req under the first-byte and idle timeouts of t. On success
// the returned response's Body is watched: a read that waits longer than
// t.Idle fails with a network *Error, and closing the body stops the
// watch. Transport failures come back as network *Errors naming provider;
// a cancelled ctx comes back as ctx's error.
func Send(ctx context.Context, client *http.Client, t Timeouts, provider string, req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{cancel: cancel, idle: t.Idle}
	w.arm(t.FirstByte, "first byte")
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		w.stop()
		err = transportError(ctx, provider, err)
		cancel(nil)
		return nil, err
	}
	w.ctx, w.provider, w.body = ctx, provider, resp.Body
	resp.Body = w
	return resp, nil
}

// transportError classifies a failure of client.Do or of a body read.
func transportError(ctx context.Context, provider string, err error) error {
	var te *timeoutError
	if cause := context.Cause(ctx); errors.As(cause, &te) {
		return &Error{Kind: ErrNetwork, Provider: provider, Message: te.Error(), Err: te}
	}
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			return cause
		}
		return ctx.Err()
	}
	return &Error{Kind: ErrNetwork, Provider: provider, Message: err.Error(), Err: err}
}

// watchdog is the response body of a Send call. It cancels the request
// when the server is silent for too long. One timer is re-armed on every
// read, so a fast stream costs no allocation per chunk.
type watchdog struct {
	mu       sync.Mutex
	timer    *time.Timer
	phase    string
	limit    time.Duration
	cancel   context.CancelCauseFunc
	idle     time.Duration
	ctx      context.Context
	provider string
	body     io.ReadCloser
}

func (w *watchdog) arm(d time.Duration, phase string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.phase, w.limit = phase, d
	switch {
	case d <= 0:
		if w.timer != nil {
			w.timer.Stop()
		}
	case w.timer == nil:
		w.timer = time.AfterFunc(d, w.fire)
	default:
		w.timer.Reset(d)
	}
}

func (w *watchdog) fire() {
	w.mu.Lock()
	phase, limit := w.phase, w.limit
	w.mu.Unlock()
	if limit > 0 {
		w.cancel(&timeoutError{phase: phase, after: limit})
	}
}

func (w *watchdog) stop() { w.arm(0, "") }

// Read reads from the body; the first bytes switch the watch from the
// first-byte limit to the idle limit, and every read re-arms it.
func (w *watchdog) Read(p []byte) (int, error) {
	n, err := w.body.Read(p)
	if n > 0 {
		w.arm(w.idle, "idle")
	}
	if err != nil && err != io.EOF {
		return n, transportError(w.ctx, w.provider, err)
	}
	return n, err
}

// Close stops the watch, closes the body and releases the request.
func (w *watchdog) Close() error {
	w.stop()
	err := w.body.Close()
	w.cancel(nil)
	return err
}

// ReadError classifies a failure to read a response body, so that every
// adapter ends its stream the same way: the caller's cancellation as ctx's
// error, a transport *Error (an idle timeout, a reply past its Budget) as
// itself, an event too large to be real as reply_too_large, and anything
// else as a network error that the retry layer may retry.
func ReadError(ctx context.Context, provider string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if e, ok := AsError(err); ok {
		return e
	}
	if errors.Is(err, sse.ErrTooLarge) {
		return &Error{Kind: ErrReplyTooLarge, Provider: provider, Message: err.Error() + ", so hermes cut the stream", Err: err}
	}
	return &Error{Kind: ErrNetwork, Provider: provider, Message: "read response: " + err.Error(), Err: err}
}
