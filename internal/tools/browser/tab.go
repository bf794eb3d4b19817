package browser

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// maxConsole bounds the console messages a tab keeps between two
// browser_console calls; a page that logs in a loop would otherwise grow
// the buffer without end.
const maxConsole = 200

// ConsoleMessage is one console call or uncaught error of the page.
type ConsoleMessage struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
	Line int64  `json:"line,omitempty"`
}

// tab is one session's page. Its mutex serialises actions, since chromedp
// actions on one target race with each other.
type tab struct {
	ctx    context.Context
	cancel context.CancelFunc
	guard  *netguard.Guard

	mu sync.Mutex // held for the duration of one tool call

	logMu   sync.Mutex
	console []ConsoleMessage
	dropped int
	blocked string // the last sub-request the guard refused, for errors
}

// openTab opens a new tab in the browser of bctx, starts collecting its
// console and intercepts its requests so the guard sees each one.
func openTab(call, bctx context.Context, guard *netguard.Guard) (*tab, error) {
	ctx, cancel := chromedp.NewContext(bctx)
	if err := startWithin(call, ctx, cancel); err != nil {
		return nil, tool.Errorf(tool.CodeUpstreamUnavailable, "cannot open a browser tab: %v", err)
	}
	t := &tab{ctx: ctx, cancel: cancel, guard: guard}
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if err := chromedp.Do(ctx, chromedp.Func(func(c context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(c, fetch.Enable, fetch.EnableParams{})
		return err
	})); err != nil {
		cancel()
		return nil, tool.Errorf(tool.CodeUpstreamUnavailable, "cannot intercept the tab's requests: %v", err)
	}
	go t.intercept(paused)
	go t.collect(chromedp.Console(ctx))
	return t, nil
}

// close closes the tab; the browser stays.
func (t *tab) close() { t.cancel() }

// intercept answers every paused request: continue when the guard admits
// its URL and the addresses its host resolves to, fail it otherwise.
// Each request is handled on its own goroutine so a slow DNS lookup does
// not hold up the page's other requests.
func (t *tab) intercept(events func(func(fetch.EventRequestPaused, error) bool)) {
	for ev, err := range events {
		if err != nil {
			return
		}
		go func() {
			reason := t.check(ev.Request.URL)
			var err error
			if reason != "" {
				t.logMu.Lock()
				t.blocked = reason
				t.logMu.Unlock()
				_, err = chromedp.Call(t.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			} else {
				_, err = chromedp.Call(t.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			}
			_ = err // the request is gone (page navigated away or tab closed)
		}()
	}
}

// check returns why the guard refuses raw, or "".
func (t *tab) check(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "cannot parse " + raw
	}
	switch u.Scheme {
	case "data", "blob", "about":
		return ""
	}
	ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
	defer cancel()
	if err := checkResolved(ctx, t.guard, u); err != nil {
		return err.Error()
	}
	return ""
}

// collect appends the tab's console messages and uncaught errors to its
// buffer until the tab closes.
func (t *tab) collect(msgs func(func(chromedp.ConsoleMessage, error) bool)) {
	for m, err := range msgs {
		if err != nil {
			return
		}
		t.logMu.Lock()
		if len(t.console) >= maxConsole {
			t.console = t.console[1:]
			t.dropped++
		}
		t.console = append(t.console, ConsoleMessage{Type: string(m.Type), Text: m.Text, URL: m.URL, Line: m.Line})
		t.logMu.Unlock()
	}
}

// takeConsole returns the buffered messages and how many were dropped for
// want of room, emptying the buffer when clear is set.
func (t *tab) takeConsole(clear bool) ([]ConsoleMessage, int) {
	t.logMu.Lock()
	defer t.logMu.Unlock()
	msgs, dropped := append([]ConsoleMessage(nil), t.console...), t.dropped
	if clear {
		t.console, t.dropped = nil, 0
	}
	return msgs, dropped
}

// lastBlocked returns and forgets the last refusal of a sub-request.
func (t *tab) lastBlocked() string {
	t.logMu.Lock()
	defer t.logMu.Unlock()
	b := t.blocked
	t.blocked = ""
	return b
}

// run runs a within d on the tab, also stopping when the call's context
// ends, and classifies its error for the model.
func run[T any](call context.Context, t *tab, what string, d time.Duration, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(t.ctx, d)
	defer cancel()
	stop := context.AfterFunc(call, cancel)
	defer stop()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		return v, t.classify(call, ctx, what, d, err)
	}
	return v, nil
}

// classify turns a chromedp error into a tool error: a guard refusal is
// denied, a passed deadline a timeout, and anything else from Chromium
// upstream_unavailable.
func (t *tab) classify(call, ctx context.Context, what string, d time.Duration, err error) error {
	if te, ok := tool.AsError(err); ok {
		return te
	}
	var le *chromedp.LoadError
	if errors.As(err, &le) && strings.Contains(le.ErrorText, "BLOCKED_BY_CLIENT") {
		if reason := t.lastBlocked(); reason != "" {
			return tool.Errorf(tool.CodeDenied, "%s: %s", what, reason)
		}
	}
	switch {
	case call.Err() != nil && errors.Is(call.Err(), context.DeadlineExceeded):
		return tool.Errorf(tool.CodeTimeout, "%s: the call ran out of time", what)
	case call.Err() != nil:
		return tool.Errorf(tool.CodeInterrupted, "%s: cancelled", what)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return tool.Errorf(tool.CodeTimeout, "%s: not done within %s", what, d)
	case t.ctx.Err() != nil:
		return tool.Errorf(tool.CodeUpstreamUnavailable, "%s: the browser tab closed (Chromium stopped or crashed): %v; try again", what, err)
	}
	return tool.Errorf(tool.CodeUpstreamUnavailable, "%s: %v", what, err)
}
