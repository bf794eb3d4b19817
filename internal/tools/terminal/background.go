package terminal

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// Defaults of the background-process options.
const (
	DefaultMaxProcesses       = 64
	DefaultProcessOutputBytes = 200 * 1024
	DefaultProcessRetention   = 30 * time.Minute
)

// stopWait bounds how long stopping waits for a process to be reaped after
// SIGKILL; a process stuck in the kernel (uninterruptible I/O) must not
// hold the call forever.
const stopWait = 2 * time.Second

// bgProc is one background process.
type bgProc struct {
	id      string
	session string
	command string
	cwd     string
	pid     int
	started time.Time
	out     *ring
	// wait reaps the shell and returns its exit code.
	wait func() int
	// done is closed once the shell exited and its exit is recorded;
	// drained once nothing holds the output pipe any more.
	done    chan struct{}
	drained chan struct{}

	// signal, when set, replaces signalling the local process group pid:
	// it sends SIGKILL when kill is set, else SIGTERM (a remote backend's
	// processes run on another host).
	signal func(kill bool)

	stdinMu sync.Mutex
	stdin   Stdin // nil once closed

	// input is what is known of how the process reads its stdin, for
	// checking what is written to it.
	input inputState

	// Guarded by registry.mu.
	exited     bool
	exitCode   int
	ended      time.Time
	killed     bool
	pollOffset int64
}

// registry tracks the background processes of one Terminal.
type registry struct {
	mu        sync.Mutex
	procs     map[string]*bgProc
	max       int
	retention time.Duration
	now       func() time.Time
	closed    bool
}

func newRegistry(max int, retention time.Duration, now func() time.Time) *registry {
	return &registry{procs: make(map[string]*bgProc), max: max, retention: retention, now: now}
}

// pruneLocked forgets processes that exited longer than retention ago.
func (r *registry) pruneLocked() {
	now := r.now()
	for id, p := range r.procs {
		if p.exited && now.Sub(p.ended) > r.retention {
			delete(r.procs, id)
		}
	}
}

// roomLocked makes room for one more process by forgetting the process
// that exited first, if every slot is taken; it fails when all slots hold
// running processes.
func (r *registry) roomLocked(session string) error {
	if r.closed {
		return &tool.Error{Code: tool.CodeUpstreamUnavailable, Message: "hermes is shutting down; no background process can start"}
	}
	r.pruneLocked()
	if len(r.procs) < r.max {
		return nil
	}
	var oldest *bgProc
	var mine []string
	for _, p := range r.procs {
		if p.exited && (oldest == nil || p.ended.Before(oldest.ended)) {
			oldest = p
		}
		if !p.exited && p.session == session {
			mine = append(mine, p.id)
		}
	}
	if oldest != nil {
		delete(r.procs, oldest.id)
		return nil
	}
	sort.Strings(mine)
	msg := fmt.Sprintf("%d background processes are already running, the most hermes tracks; none was started. "+
		"Free a slot first: stop one you no longer need with process(action=\"kill\", session_id=...), "+
		"or let one finish with process(action=\"wait\", session_id=...)", r.max)
	if len(mine) > 0 {
		msg += ". Yours: " + strings.Join(mine, ", ")
	} else {
		msg += ". None of them belongs to this session, so ask the user to stop some"
	}
	return &tool.Error{Code: tool.CodeInvalidArguments, Message: msg}
}

// checkRoom reports whether a process could start now, so no one is asked
// to approve a command that cannot run.
func (r *registry) checkRoom(session string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.roomLocked(session)
}

// add registers p for session and starts reaping it. When there is no
// room (the slots filled up since checkRoom, or hermes is closing) p is
// killed and the error returned.
func (r *registry) add(p *bgProc, session string) error {
	r.mu.Lock()
	p.session = session
	p.started = r.now()
	err := r.roomLocked(session)
	if err == nil {
		p.id = newProcessID()
		for r.procs[p.id] != nil {
			p.id = newProcessID()
		}
		r.procs[p.id] = p
	}
	r.mu.Unlock()
	go r.reap(p)
	if err != nil {
		p.killGroup()
		return err
	}
	return nil
}

// reap waits for the shell to exit, lets the output pipe drain briefly so
// the final output is in before the exit shows, and records the exit.
func (r *registry) reap(p *bgProc) {
	code := p.wait()
	select {
	case <-p.drained:
	case <-time.After(DrainGrace):
	}
	p.stdinMu.Lock()
	if p.stdin != nil {
		p.stdin.Close()
		p.stdin = nil
	}
	p.stdinMu.Unlock()
	r.mu.Lock()
	p.exited = true
	p.exitCode = code
	p.ended = r.now()
	r.mu.Unlock()
	close(p.done)
}

func newProcessID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "proc_" + hex.EncodeToString(b[:])
}

// get returns the session's process id, or a not_found error.
func (r *registry) get(session, id string) (*bgProc, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pruneLocked()
	p := r.procs[id]
	if p == nil || p.session != session {
		return nil, tool.Errorf(tool.CodeNotFound, "no background process %q in this session; "+
			"process(action=\"list\") shows yours (finished ones are forgotten %s after they exit)",
			id, durationString(r.retention))
	}
	return p, nil
}

// list returns the session's processes, oldest first.
func (r *registry) list(session string) []ProcessInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pruneLocked()
	var ps []*bgProc
	for _, p := range r.procs {
		if p.session == session {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if !ps[i].started.Equal(ps[j].started) {
			return ps[i].started.Before(ps[j].started)
		}
		return ps[i].id < ps[j].id
	})
	infos := make([]ProcessInfo, 0, len(ps))
	for _, p := range ps {
		infos = append(infos, r.infoLocked(p, 200))
	}
	return infos
}

// info returns p's status.
func (r *registry) info(p *bgProc) ProcessInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.infoLocked(p, 0)
}

// infoLocked describes p, with the command cut to maxCmd bytes if
// maxCmd > 0.
func (r *registry) infoLocked(p *bgProc, maxCmd int) ProcessInfo {
	info := ProcessInfo{
		ProcessID:   p.id,
		PID:         p.pid,
		Command:     p.command,
		Cwd:         p.cwd,
		Status:      "running",
		StartedAt:   p.started,
		OutputBytes: p.out.size(),
		Killed:      p.killed,
	}
	if maxCmd > 0 && len(info.Command) > maxCmd {
		cut := maxCmd
		for cut > 0 && !isRuneStart(info.Command[cut]) {
			cut--
		}
		info.Command = info.Command[:cut] + "…"
	}
	end := r.now()
	if p.exited {
		info.Status = "exited"
		code, ended := p.exitCode, p.ended
		info.ExitCode, info.EndedAt = &code, &ended
		end = p.ended
	}
	info.RuntimeSeconds = math.Round(end.Sub(p.started).Seconds()*10) / 10
	return info
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// stop ends processes: SIGTERM to each group, SIGKILL to the groups still
// there after KillGrace, then waits (boundedly) for the shells to be
// reaped. Groups of processes that already exited get SIGKILL when
// something the command left running still holds their output pipe.
func (r *registry) stop(ps []*bgProc) {
	r.mu.Lock()
	var running []*bgProc
	for _, p := range ps {
		if !p.exited {
			p.killed = true
			running = append(running, p)
		}
	}
	r.mu.Unlock()
	for _, p := range running {
		p.termGroup()
	}
	grace := time.NewTimer(KillGrace)
	defer grace.Stop()
wait:
	for _, p := range running {
		select {
		case <-p.done:
		case <-grace.C:
			break wait
		}
	}
	for _, p := range ps {
		select {
		case <-p.drained:
			select {
			case <-p.done:
				continue // nothing left of the group
			default:
			}
		default:
		}
		p.killGroup()
	}
	deadline := time.NewTimer(stopWait)
	defer deadline.Stop()
	for _, p := range running {
		select {
		case <-p.done:
		case <-deadline.C:
			return
		}
	}
}

// termGroup sends SIGTERM to the process's group.
func (p *bgProc) termGroup() {
	if p.signal != nil {
		p.signal(false)
		return
	}
	termGroup(p.pid)
}

// killGroup sends SIGKILL to the process's group.
func (p *bgProc) killGroup() {
	if p.signal != nil {
		p.signal(true)
		return
	}
	killGroup(p.pid)
}

// remove drops processes of session (all sessions when all is set) from
// the registry and returns them.
func (r *registry) remove(session string, all bool) []*bgProc {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ps []*bgProc
	for id, p := range r.procs {
		if all || p.session == session {
			ps = append(ps, p)
			delete(r.procs, id)
		}
	}
	return ps
}
