// Package terminal is the built-in "terminal" tool: it runs one shell
// command per call on the local machine, the way Hermes Agent's terminal
// tool does, so skills and prompts written for Hermes work unchanged.
//
// Each session has a persistent bash of its own, in its own session and
// process group, that runs the session's commands one after another, so
// that variables, exports, functions and the working directory carry over
// between calls, as in a terminal; a timeout or an interrupt kills the
// command with everything it started, and the shell with it (see shells
// and pshell). A command runs in the shell only when the invocation's
// approver judges it knowing what the shell holds (tool.ShellApprover).
// Otherwise, with Options.SpawnPerCall, with a shell that is not bash,
// and when no shell can start, each call is a fresh `bash -c` in its own
// session and process group, and only the working directory carries over
// (see SessionDirs). Background commands are always started that way.
//
// With Options.Backend set, commands run elsewhere instead: the backend of
// tools/terminal/ssh runs them on a remote host over one persistent SSH
// connection (see Backend).
package terminal

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed description.md
var description string

// perCallDescription rewrites the description for a terminal whose
// commands each run in a bash of their own (no persistent shell, or a
// remote backend), where only the working directory carries over.
func perCallDescription(desc string) string {
	start := strings.Index(desc, "- Calls of one session run")
	end := strings.Index(desc, "- stdout and stderr")
	if start < 0 || end < start {
		return desc
	}
	desc = desc[:start] + "- Every call is a new `bash -c` process. The working directory carries over to the next call " +
		"(`cd src` now, and later commands run in src), but shell variables, `export`s, aliases, functions and " +
		"activated virtualenvs do not: chain them in one command (`source .venv/bin/activate && pytest`).\n" + desc[end:]
	desc = strings.Replace(desc, " A background command runs in a fresh bash of its own, without the session's variables.", "", 1)
	return strings.Replace(desc, "keep running until the session's shell ends", "keep running", 1)
}

// Defaults for the zero values of Options.
const (
	DefaultShell          = "bash"
	DefaultTimeout        = 180 * time.Second
	DefaultMaxTimeout     = 600 * time.Second
	DefaultMaxOutputBytes = 50 * 1024
	DefaultMaxOutputLines = 2000
)

// outerSlack is how much longer the dispatcher's limit is than the longest
// timeout a call may ask for, so the tool's own timeout, which returns the
// partial output, always fires first.
const outerSlack = 10 * time.Second

// Options configures a Terminal. The zero value is usable but denies every
// command, because it has no Fallback approver.
type Options struct {
	// Shell is the bash-compatible shell to run commands with, looked up
	// with exec.LookPath; empty means "bash".
	Shell string
	// DefaultTimeout applies when a call gives no timeout (180 s if zero).
	DefaultTimeout time.Duration
	// MaxTimeout is the largest timeout a call may ask for (600 s if zero).
	MaxTimeout time.Duration
	// MaxOutputBytes and MaxOutputLines cap the output returned to the
	// model; the tail is kept because errors and summaries come last
	// (50 KB and 2,000 lines if zero).
	MaxOutputBytes int
	MaxOutputLines int
	// ScrubNames lists environment variables commands must not see:
	// hermes's own provider keys and tokens. Variables named
	// HERMES_*API_KEY* are always removed as well.
	ScrubNames []string
	// Scrub, when set, removes every further variable it returns true for.
	Scrub func(name string) bool
	// Fallback approves commands for invocations that carry no Approver.
	// When both are nil every command is denied: running unreviewed shell
	// commands must be a choice someone made, never an omission.
	Fallback tool.Approver

	// MaxProcesses caps the background processes tracked at once, running
	// or recently exited (64 if zero). When it is reached the process that
	// exited first is forgotten; with every slot running, starting another
	// fails.
	MaxProcesses int
	// ProcessOutputBytes is how much of a background process's output is
	// kept, its tail (200 KB if zero).
	ProcessOutputBytes int
	// ProcessRetention is how long an exited background process stays
	// visible to the process tool (30 minutes if zero).
	ProcessRetention time.Duration
	// Backend, when set, runs commands, foreground and background,
	// instead of the local shell, such as on a remote host over SSH
	// (tools/terminal/ssh). Shell, ScrubNames and Scrub do not apply
	// there. The Terminal closes it in Close.
	Backend Backend

	// SpawnPerCall runs every foreground command in a fresh bash of its
	// own, as background commands are, instead of the session's
	// persistent shell.
	SpawnPerCall bool
	// ShellIdle is how long a session's shell may go unused before it is
	// closed (10 minutes if zero); MaxShells caps the shells alive at
	// once (16 if zero), closing the one unused longest to make room.
	ShellIdle time.Duration
	MaxShells int

	// Clock is the clock for process start, end and retention times, and
	// for the shells' idle time; nil means the real clock.
	Clock clock.Clock
}

// Terminal is the terminal tool. It is safe for concurrent use; calls of
// different sessions run independently.
type Terminal struct {
	opt       Options
	shellPath string
	shellErr  error
	dirs      *SessionDirs
	procs     *registry
	backend   Backend
	// shells are the sessions' persistent shells; nil when commands run
	// in a bash of their own.
	shells *shells
}

// New returns a Terminal with opt's zero fields set to their defaults. A
// missing shell is reported by Available, not here, so hermes can still
// list the tool with the reason it is off.
func New(opt Options) *Terminal {
	if opt.Shell == "" {
		opt.Shell = DefaultShell
	}
	if opt.DefaultTimeout <= 0 {
		opt.DefaultTimeout = DefaultTimeout
	}
	if opt.MaxTimeout <= 0 {
		opt.MaxTimeout = DefaultMaxTimeout
	}
	if opt.DefaultTimeout > opt.MaxTimeout {
		opt.DefaultTimeout = opt.MaxTimeout
	}
	if opt.MaxOutputBytes <= 0 {
		opt.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if opt.MaxOutputLines <= 0 {
		opt.MaxOutputLines = DefaultMaxOutputLines
	}
	if opt.MaxProcesses <= 0 {
		opt.MaxProcesses = DefaultMaxProcesses
	}
	if opt.ProcessOutputBytes <= 0 {
		opt.ProcessOutputBytes = DefaultProcessOutputBytes
	}
	if opt.ProcessRetention <= 0 {
		opt.ProcessRetention = DefaultProcessRetention
	}
	if opt.ShellIdle <= 0 {
		opt.ShellIdle = DefaultShellIdle
	}
	if opt.MaxShells <= 0 {
		opt.MaxShells = DefaultMaxShells
	}
	opt.Clock = clock.OrReal(opt.Clock)
	t := &Terminal{
		opt:   opt,
		dirs:  NewSessionDirs(),
		procs: newRegistry(opt.MaxProcesses, opt.ProcessRetention, opt.Clock.Now),
	}
	t.shellPath, t.shellErr = exec.LookPath(opt.Shell)
	if t.shellErr == nil {
		t.shellErr = platformSupported()
	}
	t.backend = localBackend{t}
	if opt.Backend != nil {
		t.backend = opt.Backend
		t.dirs = opt.Backend.Dirs()
	}
	if opt.Backend == nil && !opt.SpawnPerCall && t.shellErr == nil && filepath.Base(t.shellPath) == "bash" {
		t.shells = newShells(t, opt.ShellIdle, opt.MaxShells, opt.Clock)
	}
	return t
}

// Available reports why the tool cannot run here: the shell is missing or
// the platform has no process groups to kill timed-out commands with; with
// Options.Backend set, what that backend reports (on ssh, the
// configuration is incomplete or the key file or known_hosts file is
// unreadable; the host itself is reached only when a command runs).
func (t *Terminal) Available() error {
	return t.backend.Available()
}

// Forget drops the remembered working directory of a session, so a
// long-running process does not keep one entry per finished session,
// closes its shell, and kills the session's background processes (with
// everything they started), waiting a few seconds at most.
func (t *Terminal) Forget(sessionID string) {
	t.dirs.forget(sessionID)
	if t.shells != nil {
		t.shells.forget(sessionID)
	}
	t.procs.stop(t.procs.remove(sessionID, false))
}

// Spec describes the tool. Calls are neither parallel-safe nor idempotent
// because a command may change anything; the dispatcher's limit sits above
// MaxTimeout so the tool's own timeout, which keeps the partial output,
// wins.
func (t *Terminal) Spec() tool.Spec {
	desc := description
	if t.shells == nil {
		desc = perCallDescription(desc)
	}
	if l, ok := t.backend.(Located); ok {
		desc = strings.Replace(desc, "on the user's machine", l.Location(), 1)
	}
	return tool.Spec{
		Name:        "terminal",
		Description: desc,
		Parameters:  t.schema(),
		Toolset:     "terminal",
		Timeout:     t.opt.MaxTimeout + outerSlack,
		// JSON escaping can make the output longer than its byte cap.
		MaxOutput: 2*t.opt.MaxOutputBytes + 4096,
	}
}

// schema is the JSON Schema of the arguments, Hermes Agent's shape minus
// pty, which comes later.
func (t *Terminal) schema() json.RawMessage {
	maxSec := int(t.opt.MaxTimeout / time.Second)
	defSec := int(t.opt.DefaultTimeout / time.Second)
	s := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"command": map[string]any{
				"type":        "string",
				"description": "The bash command to execute.",
			},
			"timeout": map[string]any{
				"type":    "integer",
				"minimum": 1,
				"maximum": maxSec,
				"description": fmt.Sprintf("Max seconds to wait (default: %d, max: %d). "+
					"The call returns as soon as the command finishes, so a generous "+
					"timeout costs nothing.", defSec, maxSec),
			},
			"background": map[string]any{
				"type": "boolean",
				"description": "Run the command in the background and return at once with a " +
					"process_id, for servers, watchers and long jobs. Manage it with the process " +
					"tool (poll, log, wait, kill, write). timeout does not apply.",
			},
			"workdir": map[string]any{
				"type": "string",
				"description": "Working directory for this command only (absolute, or " +
					"relative to the session's current directory). Defaults to the " +
					"session's current directory.",
			},
		},
		"required":             []string{"command"},
		"additionalProperties": false,
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic("terminal: schema does not marshal: " + err.Error())
	}
	return b
}
