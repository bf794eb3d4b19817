package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// State is where a server is in its life.
type State string

// The states a server reports.
const (
	StateConnecting State = "connecting"
	StateConnected  State = "connected"
	StateDown       State = "down"
	StateDisabled   State = "disabled"
)

// server is one configured MCP server: its connection, the tools hermes
// registered for it, and the goroutine that keeps it connected.
type server struct {
	name string
	cfg  ServerConfig
	m    *Manager
	log  *slog.Logger

	mu     sync.Mutex
	state  State
	reason string
	since  time.Time
	sess   *sdk.ClientSession
	cmd    *exec.Cmd
	// names are the registry names of the tools installed for the
	// server; only the run goroutine changes them while it runs.
	names []string

	// changed is signalled by the server's tools/list_changed
	// notifications; brokenCh by calls that found the connection gone.
	changed  chan struct{}
	brokenCh chan brokenReport

	cancel context.CancelFunc
	done   chan struct{}
	// first is closed when the first connection attempt has ended.
	first     chan struct{}
	firstOnce sync.Once
}

// brokenReport is a call's report that a session's connection is gone.
type brokenReport struct {
	sess *sdk.ClientSession
	err  error
}

func newServer(m *Manager, name string, cfg ServerConfig) *server {
	return &server{
		name: name, cfg: cfg.withDefaults(), m: m,
		log:      m.log.With("server", name),
		state:    StateConnecting,
		since:    time.Now(),
		changed:  make(chan struct{}, 1),
		brokenCh: make(chan brokenReport, 1),
		done:     make(chan struct{}),
		first:    make(chan struct{}),
	}
}

// available is nil while the server is connected, else why its tools
// cannot be called.
func (s *server) available() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case StateConnected:
		return nil
	case StateConnecting:
		return fmt.Errorf("MCP server %s is connecting", s.name)
	case StateDisabled:
		return fmt.Errorf("MCP server %s is disabled", s.name)
	}
	return fmt.Errorf("MCP server %s is down: %s; reconnecting", s.name, s.reason)
}

// current returns the live session, or nil while the server is down.
func (s *server) current() *sdk.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// broken reports that a call on sess found the connection gone; the run
// goroutine closes it and reconnects. Reports beyond the first, and about
// sessions already replaced, are dropped.
func (s *server) broken(sess *sdk.ClientSession, err error) {
	select {
	case s.brokenCh <- brokenReport{sess: sess, err: err}:
	default:
	}
}

// start runs the server's connection loop until stop.
func (s *server) start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.run(ctx)
}

// stop ends the connection loop, closes the session (a stdio server's
// process exits or is killed) and unregisters the server's tools.
func (s *server) stop() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	s.mu.Lock()
	names := s.names
	s.names = nil
	s.state, s.sess, s.since = StateDown, nil, time.Now()
	s.reason = "stopped"
	s.mu.Unlock()
	if len(names) > 0 {
		s.m.reg.Unregister(names...)
	}
}

// run connects the server, serves it until the connection ends, and
// reconnects with growing waits, until ctx ends.
func (s *server) run(ctx context.Context) {
	defer close(s.done)
	defer s.firstOnce.Do(func() { close(s.first) })
	attempt := 0
	for {
		sess, stderr, err := s.connect(ctx)
		if err == nil {
			s.firstOnce.Do(func() { close(s.first) })
			attempt = 0
			err = s.serve(ctx, sess)
			sess.Close()
			s.mu.Lock()
			killGroup(s.cmd)
			s.mu.Unlock()
			if errors.Is(err, errExited) {
				err = s.exitReason(stderr)
			}
		}
		if ctx.Err() != nil {
			return
		}
		s.setDown(err)
		// Start returns once the first attempt is settled either way, so
		// Status then says connected or down, never still connecting.
		s.firstOnce.Do(func() { close(s.first) })
		attempt++
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.m.backoff(attempt)):
		}
	}
}

// errExited says the session ended because the server closed it.
var errExited = errors.New("the server closed the connection")

// serve waits for the session to end, relisting tools when the server
// says they changed. It returns why the session ended.
func (s *server) serve(ctx context.Context, sess *sdk.ClientSession) error {
	ended := make(chan struct{})
	go func() {
		sess.Wait()
		close(ended)
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ended:
			return errExited
		case b := <-s.brokenCh:
			if b.sess == sess {
				return b.err
			}
		case <-s.changed:
			if err := s.relist(ctx, sess); err != nil {
				// A server that died during the listing ends its session
				// at once; its exit says more than the failed request.
				select {
				case <-ended:
					return errExited
				case <-time.After(200 * time.Millisecond):
				}
				return fmt.Errorf("listing tools after a change: %w", err)
			}
		}
	}
}

// exitReason explains why a stdio server's session ended, from its exit
// status and the last line of its standard error.
func (s *server) exitReason(stderr *tailBuffer) error {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	reason := errExited.Error()
	if cmd != nil && cmd.ProcessState != nil {
		reason = "the process exited (" + cmd.ProcessState.String() + ")"
	}
	if line := stderr.lastLine(); line != "" {
		reason += ": " + truncate(line, 200)
	}
	return errors.New(reason)
}

// setDown marks the server down with a reason and withdraws its tools
// from the model. The first failure after being connected is a warning;
// repeated failures while reconnecting are logged at debug level, so a
// dead server does not flood the log.
func (s *server) setDown(err error) {
	reason := "unknown error"
	if err != nil {
		reason = err.Error()
	}
	s.mu.Lock()
	prev := s.state
	if prev != StateDown {
		s.since = time.Now()
	}
	s.state, s.reason, s.sess = StateDown, reason, nil
	s.mu.Unlock()
	s.m.reg.Refresh()
	switch prev {
	case StateConnected:
		s.log.Warn("mcp server is down; reconnecting", "error", reason)
	case StateConnecting:
		s.log.Warn("mcp server failed to connect; retrying in the background", "error", reason)
	default:
		s.log.Debug("mcp server is still down", "error", reason)
	}
}
