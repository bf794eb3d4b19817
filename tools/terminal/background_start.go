package terminal

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/tool"
)

// Close kills every background process still running, with everything it
// started, and refuses new ones. Call it when hermes exits. It returns
// once the processes are gone (a few seconds at most) and always nil. On
// the ssh backend it also closes the connection.
func (t *Terminal) Close() error {
	t.procs.mu.Lock()
	t.procs.closed = true
	t.procs.mu.Unlock()
	t.procs.stop(t.procs.remove("", true))
	_ = t.backend.close()
	return nil
}

// startBackground runs command at the place in the background for the
// session and returns at once.
func (t *Terminal) startBackground(ctx context.Context, inv tool.Invocation, command string, at place) (any, error) {
	dir, note := at.dir, at.note
	var p *bgProc
	var err error
	if t.ssh != nil {
		if p, dir, note, err = t.ssh.spawn(ctx, command, at); err != nil {
			return nil, err
		}
	} else if p, err = t.spawn(command, dir); err != nil {
		return nil, fmt.Errorf("terminal: starting %s in %s: %w", t.shellPath, dir, err)
	}
	if err := t.procs.add(p, inv.SessionID); err != nil {
		return nil, err
	}
	return Started{
		ProcessID: p.id,
		PID:       p.pid,
		Command:   command,
		Cwd:       dir,
		StartedAt: p.started,
		Note:      note,
	}, nil
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
