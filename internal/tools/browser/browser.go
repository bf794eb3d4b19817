// Package browser holds the browser tools: browser_navigate,
// browser_snapshot, browser_click, browser_type, browser_press,
// browser_scroll, browser_back, browser_console and browser_screenshot.
// They drive a headless Chromium through the DevTools protocol so the model
// can use pages that need JavaScript, forms or clicks, which web_extract
// cannot. Names and parameters follow Hermes Agent's browser tools so
// prompts and skills written for Hermes work unchanged.
//
// One Manager owns one Chromium process, started on the first call and
// closed after a spell without calls, and gives every session its own tab,
// so two conversations never click around in each other's pages.
//
// Every URL the model navigates to is checked with the URL guard first.
// The page's own sub-requests (images, scripts, frames, fetches, redirects)
// are intercepted and checked too, including the addresses their host names
// resolve to, but that check cannot be complete: Chromium resolves names
// again itself (so DNS rebinding between the two lookups slips through), and
// WebSockets, service workers and other requests outside the page's fetch
// pipeline are not intercepted. The browser tools therefore protect the
// machine's own services less strictly than the web tools' guarded client
// does.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// Defaults of Options and the bounds of one call. A navigation gets longer
// than other actions because slow sites take that long to load.
const (
	DefaultInactivityTimeout = 5 * time.Minute
	NavigationTimeout        = 30 * time.Second
	ActionTimeout            = 15 * time.Second
	// startTimeout bounds starting Chromium or opening a tab.
	startTimeout = 30 * time.Second
)

// execNames are the executables Options.ExecPath defaults to, in order.
var execNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// errNoChromium is what Available reports without a browser executable.
var errNoChromium = errors.New("no Chromium found: install chromium (Debian: apt-get install chromium)")

// Options configures a Manager. The zero value of every field means its
// default.
type Options struct {
	// ExecPath is the Chromium executable; by default the first of
	// chromium, chromium-browser, google-chrome and google-chrome-stable
	// found in PATH.
	ExecPath string
	// Guard checks every URL the browser loads. Nil means the zero guard,
	// which refuses every private, loopback and link-local address.
	Guard *netguard.Guard
	// InactivityTimeout closes Chromium after that long without a call
	// (default 5 minutes); the next call starts it again with fresh tabs.
	InactivityTimeout time.Duration
	// Visible shows a browser window instead of running headless, for
	// debugging on a desktop.
	Visible bool
	// ScreenshotDir is where browser_screenshot writes its PNG files
	// (default: hermes/screenshots in the system temp directory).
	ScreenshotDir string
}

// Manager owns the Chromium process and one tab per session. It is safe for
// concurrent use; actions on one tab run one at a time.
type Manager struct {
	opts  Options
	guard *netguard.Guard

	mu          sync.Mutex
	closed      bool
	allocCancel context.CancelFunc
	browserCtx  context.Context
	browserStop context.CancelFunc
	tabs        map[string]*tab
	active      int
	lastUse     time.Time
	idle        *time.Timer
}

// New returns a Manager; Chromium starts only when a tool is first called.
// The caller must call Close when done, or Chromium outlives hermes until
// the inactivity timeout.
func New(opts Options) *Manager {
	if opts.ExecPath == "" {
		for _, name := range execNames {
			if p, err := exec.LookPath(name); err == nil {
				opts.ExecPath = p
				break
			}
		}
	}
	if opts.InactivityTimeout <= 0 {
		opts.InactivityTimeout = DefaultInactivityTimeout
	}
	g := opts.Guard
	if g == nil {
		g = &netguard.Guard{}
	}
	return &Manager{opts: opts, guard: g, tabs: map[string]*tab{}}
}

// Available reports a missing Chromium, so tool listings say why the
// browser tools are not offered.
func (m *Manager) Available() error {
	if m.opts.ExecPath == "" {
		return errNoChromium
	}
	if _, err := exec.LookPath(m.opts.ExecPath); err != nil {
		return fmt.Errorf("%w (%s: %v)", errNoChromium, m.opts.ExecPath, err)
	}
	return nil
}

// Close stops Chromium and removes its profile directory. Calls after Close
// fail.
func (m *Manager) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.shutdownLocked()
}

// CloseSession closes the session's tab, if it has one, so a finished
// conversation does not keep its page in memory until the browser idles out.
func (m *Manager) CloseSession(sessionID string) {
	m.mu.Lock()
	t := m.tabs[sessionID]
	delete(m.tabs, sessionID)
	m.mu.Unlock()
	if t != nil {
		t.close()
	}
}

// shutdownLocked closes every tab and the browser. m.mu must be held.
func (m *Manager) shutdownLocked() {
	for id, t := range m.tabs {
		t.close()
		delete(m.tabs, id)
	}
	if m.browserStop != nil {
		m.browserStop()
		m.allocCancel()
		m.browserStop, m.allocCancel, m.browserCtx = nil, nil, nil
	}
	if m.idle != nil {
		m.idle.Stop()
		m.idle = nil
	}
}

// idleCheck runs when the inactivity timer fires: it closes the browser
// unless a call is running or one happened since the timer was set.
func (m *Manager) idleCheck() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.idle == nil {
		return
	}
	if wait := m.opts.InactivityTimeout - time.Since(m.lastUse); m.active > 0 || wait > 0 {
		m.idle.Reset(max(wait, time.Second))
		return
	}
	m.shutdownLocked()
}

// acquire returns the tab of the call's session, starting Chromium and
// opening the tab when needed, and marks a call as running until release.
func (m *Manager) acquire(ctx context.Context) (*tab, error) {
	if err := m.Available(); err != nil {
		return nil, tool.Errorf(tool.CodeUpstreamUnavailable, "%v", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, tool.Errorf(tool.CodeInternal, "the browser has been shut down")
	}
	if m.browserCtx != nil && m.browserCtx.Err() != nil {
		// Chromium died (crash, out of memory); start afresh.
		m.shutdownLocked()
	}
	if m.browserCtx == nil {
		if err := m.startLocked(ctx); err != nil {
			return nil, err
		}
	}
	id := tool.InvocationFrom(ctx).SessionID
	t := m.tabs[id]
	if t != nil && t.ctx.Err() != nil {
		t.close()
		t = nil
	}
	if t == nil {
		var err error
		if t, err = openTab(ctx, m.browserCtx, m.guard); err != nil {
			return nil, err
		}
		m.tabs[id] = t
	}
	m.active++
	m.lastUse = time.Now()
	return t, nil
}

// release ends a call started by acquire and re-arms the inactivity timer.
func (m *Manager) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.active--
	m.lastUse = time.Now()
	if m.idle == nil && m.browserCtx != nil {
		m.idle = time.AfterFunc(m.opts.InactivityTimeout, m.idleCheck)
	}
}

// startLocked starts Chromium. The browser's context is detached from the
// call's, since the browser outlives the call; a start that hangs is cut off
// after startTimeout or when the call is cancelled. m.mu must be held.
func (m *Manager) startLocked(ctx context.Context) error {
	flags := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(m.opts.ExecPath),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("mute-audio", true),
		// The back/forward cache restores pages without a load event,
		// which would leave browser_back waiting for one.
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,BackForwardCache"),
	)
	if m.opts.Visible {
		flags = append(flags, chromedp.VisibleWindow)
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), flags...)
	bctx, bcancel := chromedp.NewContext(allocCtx)
	if err := startWithin(ctx, bctx, bcancel); err != nil {
		allocCancel()
		return tool.Errorf(tool.CodeUpstreamUnavailable, "cannot start Chromium (%s): %v", m.opts.ExecPath, err)
	}
	m.allocCancel, m.browserCtx, m.browserStop = allocCancel, bctx, bcancel
	return nil
}

// startWithin runs chromedp's first, starting Run on cctx, whose context
// must carry no deadline, and cancels cctx if that takes longer than
// startTimeout or the call ends first.
func startWithin(call, cctx context.Context, cancel context.CancelFunc) error {
	done := make(chan error, 1)
	go func() {
		done <- chromedp.Do(cctx)
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			cancel()
		}
		return err
	case <-timer.C:
		cancel()
		return fmt.Errorf("no answer within %s", startTimeout)
	case <-call.Done():
		cancel()
		return call.Err()
	}
}
