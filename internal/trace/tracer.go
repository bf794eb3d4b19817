package trace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// Options configure a Tracer. Endpoint is required.
type Options struct {
	// Endpoint is the collector's OTLP/HTTP base URL
	// (http://localhost:4318); spans go to its /v1/traces unless the URL
	// already ends so.
	Endpoint string
	// Headers are sent with every export, typically a collector's key;
	// they are never logged.
	Headers map[string]string
	// Service is the service.name resource attribute ("hermes").
	Service string
	// Client posts the exports; nil is a client with a 10 s timeout.
	Client *http.Client
	// QueueSize bounds the spans waiting for export (2048); past it new
	// spans are dropped and counted, so a collector that is down cannot
	// grow the process.
	QueueSize int
	// BatchSize is how many spans make an export at once (512).
	BatchSize int
	// Interval is the longest a span waits for its batch (5 s).
	Interval time.Duration
	// Dropped, when set, is told of spans dropped: by a full queue, or
	// because the collector could not be reached or refused them.
	Dropped func(n int)
	Clock   clock.Clock
	Logger  *slog.Logger
}

// Tracer makes spans and exports them in batches from one goroutine.
type Tracer struct {
	opt   Options
	url   string
	clock clock.Clock

	mu     sync.Mutex
	buf    []*Span
	closed bool
	wake   chan struct{}
	done   chan struct{}
}

// New checks opt and starts the exporting goroutine; Close stops it.
func New(opt Options) (*Tracer, error) {
	u, err := url.Parse(opt.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("trace: endpoint %q is not accepted; use the collector's OTLP/HTTP URL, like http://localhost:4318", opt.Endpoint)
	}
	if u.User != nil {
		return nil, fmt.Errorf("trace: endpoint %s has credentials in it; send them as a header instead (observability.otlp_headers)", redactURL(u))
	}
	if !strings.HasSuffix(u.Path, "/v1/traces") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	if opt.Service == "" {
		opt.Service = "hermes"
	}
	if opt.Client == nil {
		opt.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opt.QueueSize <= 0 {
		opt.QueueSize = 2048
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = 512
	}
	if opt.Interval <= 0 {
		opt.Interval = 5 * time.Second
	}
	if opt.Dropped == nil {
		opt.Dropped = func(int) {}
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	t := &Tracer{opt: opt, url: u.String(), clock: clock.OrReal(opt.Clock),
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go t.run()
	return t, nil
}

// queue adds an ended span to the batch, or drops it when the queue is
// full or the tracer closed.
func (t *Tracer) queue(s *Span) {
	t.mu.Lock()
	if t.closed || len(t.buf) >= t.opt.QueueSize {
		t.mu.Unlock()
		t.opt.Dropped(1)
		return
	}
	t.buf = append(t.buf, s)
	full := len(t.buf) >= t.opt.BatchSize
	t.mu.Unlock()
	if full {
		t.signal()
	}
}

// signal wakes the exporting goroutine.
func (t *Tracer) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// run exports a batch when one is full or Interval has passed, until
// Close; then it exports what is left.
func (t *Tracer) run() {
	defer close(t.done)
	timer := t.clock.NewTimer(t.opt.Interval)
	defer timer.Stop()
	for {
		select {
		case <-t.wake:
		case <-timer.C():
			timer.Reset(t.opt.Interval)
		}
		t.mu.Lock()
		closed := t.closed
		t.mu.Unlock()
		for t.flush() {
		}
		if closed {
			return
		}
	}
}

// flush exports up to one batch and reports whether more is waiting.
func (t *Tracer) flush() bool {
	t.mu.Lock()
	n := min(len(t.buf), t.opt.BatchSize)
	batch := t.buf[:n:n]
	t.buf = t.buf[n:]
	more := len(t.buf) > 0
	if len(t.buf) == 0 {
		t.buf = nil
	}
	t.mu.Unlock()
	if n == 0 {
		return false
	}
	if err := t.export(batch); err != nil {
		t.opt.Dropped(n)
		t.opt.Logger.Warn("trace: spans not exported", slog.Int("spans", n), slog.String("error", err.Error()))
	}
	return more
}

// export posts one batch.
func (t *Tracer) export(batch []*Span) error {
	body, err := encode(t.opt.Service, batch)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range t.opt.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.opt.Client.Do(req)
	if err != nil {
		// The client's error quotes the URL, never the headers.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("posting to %s: %w", t.url, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the collector at %s answered %s", t.url, resp.Status)
	}
	return nil
}

// Close exports the spans still queued and stops, or gives up when ctx
// ends first; spans ended afterwards are dropped. A nil Tracer closes at
// once.
func (t *Tracer) Close(ctx context.Context) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	already := t.closed
	t.closed = true
	t.mu.Unlock()
	if !already {
		t.signal()
	}
	select {
	case <-t.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("trace: spans not all exported: %w", ctx.Err())
	}
}

// redactURL is u without its password, for messages.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}
