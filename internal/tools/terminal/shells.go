package terminal

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/safety/shell"
)

// Defaults of the persistent shells' options.
const (
	DefaultShellIdle = 10 * time.Minute
	DefaultMaxShells = 16
)

// maxLost bounds how many sessions whose shell is gone are remembered, to
// tell each why when its next command starts a new one.
const maxLost = 1024

// shells keeps one persistent shell per session. A session's calls take
// turns on its shell; a shell unused for the idle time is closed, and
// when max shells are alive the one unused longest makes room for a new
// session's, so a gateway with many sessions does not keep hundreds of
// bash processes. When every shell is in use, a new session's command
// runs in a bash of its own, as when no shell can be started.
type shells struct {
	t     *Terminal
	idle  time.Duration
	max   int
	clock clock.Clock

	mu     sync.Mutex
	live   map[string]*slot
	lost   map[string]string // session → why its last shell is gone
	closed bool
}

// slot is a session's place among the shells.
type slot struct {
	session string
	// lock is held by the call using the slot.
	lock chan struct{}
	// sh is the shell, nil until a command starts one or after it is
	// gone; gone then says why.
	sh    *pshell
	gone  string
	used  time.Time
	timer clock.Timer
	// dropped is set once the slot left live (closed, forgotten,
	// evicted): whoever holds it closes the shell on release.
	dropped bool
}

func newShells(t *Terminal, idle time.Duration, max int, c clock.Clock) *shells {
	return &shells{t: t, idle: idle, max: max, clock: c, live: make(map[string]*slot), lost: make(map[string]string)}
}

// lease is one call's hold on its session's shell.
type lease struct {
	s  *shells
	sl *slot
}

// acquire waits for the session's slot and returns it held, or nil when
// the command is to run in a bash of its own (every shell in use, or the
// terminal closed).
func (s *shells) acquire(ctx context.Context, session string) (*lease, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, nil
		}
		sl := s.live[session]
		var evicted *pshell
		if sl == nil {
			var ok bool
			if evicted, ok = s.makeRoomLocked(); !ok {
				s.mu.Unlock()
				return nil, nil
			}
			sl = &slot{session: session, lock: make(chan struct{}, 1), gone: s.lost[session]}
			delete(s.lost, session)
			s.live[session] = sl
		}
		s.mu.Unlock()
		if evicted != nil {
			evicted.close()
		}
		select {
		case sl.lock <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
		if sl.dropped {
			s.mu.Unlock()
			<-sl.lock
			continue
		}
		if sl.timer != nil {
			sl.timer.Stop()
		}
		var idle *pshell
		if sl.sh != nil && s.clock.Now().Sub(sl.used) >= s.idle {
			idle, sl.sh, sl.gone = sl.sh, nil, s.idleReason()
		}
		s.mu.Unlock()
		if idle != nil {
			idle.close()
		}
		return &lease{s: s, sl: sl}, nil
	}
}

// makeRoomLocked makes room for one more slot when max are taken: it
// drops the idle slot used longest ago and returns its shell for the
// caller to close. It reports false when every slot is in use.
func (s *shells) makeRoomLocked() (*pshell, bool) {
	if len(s.live) < s.max {
		return nil, true
	}
	var oldest *slot
	for _, sl := range s.live {
		if len(sl.lock) == 0 && (oldest == nil || sl.used.Before(oldest.used)) {
			oldest = sl
		}
	}
	if oldest == nil {
		return nil, false
	}
	select {
	case oldest.lock <- struct{}{}:
	default:
		return nil, false
	}
	sh := oldest.sh
	s.dropLocked(oldest, fmt.Sprintf("it was closed to make room for other sessions' shells (at most %d run at once)", s.max))
	oldest.sh = nil
	<-oldest.lock
	return sh, true
}

// dropLocked removes sl from live, remembering why its session's shell
// is gone.
func (s *shells) dropLocked(sl *slot, why string) {
	if s.live[sl.session] == sl {
		delete(s.live, sl.session)
	}
	sl.dropped = true
	if sl.timer != nil {
		sl.timer.Stop()
	}
	if sl.sh != nil && why != "" {
		if len(s.lost) >= maxLost {
			for k := range s.lost {
				delete(s.lost, k)
				break
			}
		}
		s.lost[sl.session] = why
	}
}

func (s *shells) idleReason() string {
	return "it was closed after " + durationString(s.idle) + " unused"
}

// expire closes sl's shell when it has been idle for the idle time and
// nobody holds it.
func (s *shells) expire(sl *slot) {
	s.mu.Lock()
	select {
	case sl.lock <- struct{}{}:
	default:
		s.mu.Unlock()
		return
	}
	var sh *pshell
	if !sl.dropped && sl.sh != nil && s.clock.Now().Sub(sl.used) >= s.idle {
		sh = sl.sh
		s.dropLocked(sl, s.idleReason())
		sl.sh = nil
	}
	s.mu.Unlock()
	<-sl.lock
	if sh != nil {
		sh.close()
	}
}

// forget closes the session's shell, if any, and forgets the session.
func (s *shells) forget(session string) {
	s.mu.Lock()
	delete(s.lost, session)
	sl := s.live[session]
	var sh *pshell
	if sl != nil {
		s.dropLocked(sl, "")
		sh = s.takeIdleLocked(sl)
	}
	s.mu.Unlock()
	if sh != nil {
		sh.close()
	}
}

// close closes every shell and lets no more start.
func (s *shells) close() {
	s.mu.Lock()
	s.closed = true
	var shs []*pshell
	for _, sl := range s.live {
		s.dropLocked(sl, "")
		if sh := s.takeIdleLocked(sl); sh != nil {
			shs = append(shs, sh)
		}
	}
	s.mu.Unlock()
	for _, sh := range shs {
		sh.close()
	}
}

// takeIdleLocked returns a dropped slot's shell for closing when nobody
// holds the slot; otherwise the holder closes it on release.
func (s *shells) takeIdleLocked(sl *slot) *pshell {
	select {
	case sl.lock <- struct{}{}:
		sh := sl.sh
		sl.sh = nil
		<-sl.lock
		return sh
	default:
		return nil
	}
}

// state is what the session's shell holds, for the approver; the zero
// State when the command will start a new one.
func (l *lease) state() shell.State {
	if l == nil || l.sl.sh == nil || !l.sl.sh.alive() {
		return shell.State{}
	}
	return l.sl.sh.state
}

// run runs cmd at p in the session's shell, starting one when there is
// none; when none can start, it runs in a bash of its own. Its note says
// when an earlier shell of the session is gone, and when this command
// ended the shell.
func (l *lease) run(ctx context.Context, cmd Command, p Place) (RunResult, error) {
	sl, t := l.sl, l.s.t
	var notes []string
	if sl.sh != nil && !sl.sh.alive() {
		sl.gone = sl.sh.gone
		sl.sh.close()
		sl.sh = nil
	}
	if sl.sh == nil {
		sh, err := startShell(t, p.Dir)
		if err != nil {
			return t.run(ctx, cmd.Text, p.Dir, cmd.Timeout)
		}
		sl.sh = sh
		if sl.gone != "" {
			notes = append(notes, restartedNote(sl.gone, p.Dir))
			sl.gone = ""
		}
	}
	res, err := sl.sh.run(ctx, cmd.Text, p.Dir, cmd.Timeout)
	if err != nil {
		return res, err
	}
	if !sl.sh.alive() {
		notes = append(notes, "this session's shell is gone ("+sl.sh.gone+"); the next command starts a new one, "+
			"without the variables, functions and exports set so far")
	}
	if p.Note != "" && len(notes) > 0 {
		notes = append([]string{p.Note}, notes...)
	}
	res.Note = joinNotes(notes)
	return res, nil
}

// release lets the next call of the session have the shell, closing it
// when it is gone or its slot was dropped, and starts its idle timer.
func (l *lease) release() {
	s, sl := l.s, l.sl
	s.mu.Lock()
	sl.used = s.clock.Now()
	var sh *pshell
	switch {
	case sl.sh != nil && (sl.dropped || !sl.sh.alive()):
		if sl.gone = sl.sh.gone; sl.gone == "" {
			sl.gone = "it was closed"
		}
		sh, sl.sh = sl.sh, nil
	case sl.sh != nil && sl.timer == nil:
		sl.timer = s.clock.AfterFunc(s.idle, func() { s.expire(sl) })
	case sl.sh != nil:
		sl.timer.Reset(s.idle)
	}
	if sl.sh == nil && !sl.dropped {
		// A slot without a shell holds no room; its session is told
		// why its shell is gone when it next starts one.
		s.dropLocked(sl, "")
		if sl.gone != "" {
			s.lost[sl.session] = sl.gone
		}
	}
	s.mu.Unlock()
	<-sl.lock
	if sh != nil {
		sh.close()
	}
}

// restartedNote tells the model that the session's shell was started
// anew, and why the old one is gone.
func restartedNote(why, dir string) string {
	return "this session's shell was restarted (" + why + "), so variables, functions and exports set by " +
		"earlier commands are gone; it started in " + dir
}

// joinNotes joins the notes of a result.
func joinNotes(notes []string) string { return strings.Join(notes, "; ") }
