package terminal

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// Close kills every background process still running, with everything it
// started, and refuses new ones; it closes the sessions' shells. Call it
// when hermes exits. It returns once the processes are gone (a few
// seconds at most) and always nil. It also closes the backend (a remote
// one's connection).
func (t *Terminal) Close() error {
	if t.shells != nil {
		t.shells.close()
	}
	t.procs.mu.Lock()
	t.procs.closed = true
	t.procs.mu.Unlock()
	t.procs.stop(t.procs.remove("", true))
	_ = t.backend.Close()
	return nil
}

// startBackground runs command at the place in the background for the
// session and returns at once.
func (t *Terminal) startBackground(ctx context.Context, inv tool.Invocation, command string, at Place) (any, error) {
	s, err := t.backend.Spawn(ctx, command, at)
	if err != nil {
		return nil, err
	}
	p := t.newProc(command, s)
	if err := t.procs.add(p, inv.SessionID); err != nil {
		return nil, err
	}
	var notes []string
	for _, n := range []string{s.Note, p.input.startedNote()} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	return Started{
		ProcessID: p.id,
		PID:       p.pid,
		Command:   command,
		Cwd:       s.Cwd,
		StartedAt: p.started,
		Note:      strings.Join(notes, "; "),
	}, nil
}

// newProc makes a process of what the backend spawned and starts keeping
// the last ProcessOutputBytes of its output.
func (t *Terminal) newProc(command string, s Spawned) *bgProc {
	p := &bgProc{
		command: command,
		cwd:     s.Cwd,
		pid:     s.PID,
		out:     newRing(t.opt.ProcessOutputBytes),
		wait:    s.Wait,
		done:    make(chan struct{}),
		drained: make(chan struct{}),
		signal:  s.Signal,
		stdin:   s.Stdin,
	}
	p.input.reader, p.input.command = readerOf(command), command
	go func() {
		// Runs until every holder of the output is gone, which may be
		// after the shell exited (a process it left running).
		_, _ = io.Copy(p.out, s.Output)
		close(p.drained)
		_ = s.Output.Close()
	}()
	return p
}

// Started is the data of a terminal call with background set.
type Started struct {
	// ProcessID names the process in process tool calls (its session_id).
	ProcessID string    `json:"process_id"`
	PID       int       `json:"pid"`
	Command   string    `json:"command"`
	Cwd       string    `json:"cwd"`
	StartedAt time.Time `json:"started_at"`
	Note      string    `json:"note,omitempty"`
}

// ProcessInfo describes a background process in process tool results.
type ProcessInfo struct {
	ProcessID string `json:"process_id"`
	PID       int    `json:"pid"`
	Command   string `json:"command"`
	Cwd       string `json:"cwd"`
	// Status is "running" until the shell exited, then "exited".
	Status string `json:"status"`
	// ExitCode is set once exited: the command's status, 128+N when
	// signal N ended it (143 after a kill's SIGTERM, 137 after SIGKILL).
	ExitCode       *int       `json:"exit_code,omitempty"`
	StartedAt      time.Time  `json:"started_at"`
	EndedAt        *time.Time `json:"ended_at,omitempty"`
	RuntimeSeconds float64    `json:"runtime_seconds"`
	// OutputBytes counts everything the process wrote, kept or not.
	OutputBytes int64 `json:"output_bytes"`
	// Killed is true when process kill (or hermes) stopped it.
	Killed bool `json:"killed,omitempty"`
}

// durationString prints 30m0s as "30m".
func durationString(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
