package terminal

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// Backend is where commands run: the local machine (bash in its own
// session), the default, or another host, such as the one the backend of
// tools/terminal/ssh reaches over SSH. Call checks the arguments, asks
// the backend where the command starts, obtains approval, and then has
// the backend run it; the output cap, the timeout message and the
// per-session directory bookkeeping are shared.
type Backend interface {
	// Where resolves the place a call of inv starts, before approval, so
	// a call that cannot run is refused without asking anyone. workdir is
	// the call's workdir argument, "" when it gave none.
	Where(inv tool.Invocation, workdir string) (Place, error)
	// Run runs cmd at p, killing it when its timeout passes or ctx is
	// done.
	Run(ctx context.Context, cmd Command, p Place) (RunResult, error)
	// Spawn starts command at p in the background and returns at once;
	// the terminal keeps its output and reaps it.
	Spawn(ctx context.Context, command string, p Place) (Spawned, error)
	// Name says what runs commands, for error messages.
	Name() string
	// Available reports why the backend cannot run commands, or nil.
	Available() error
	// Dirs is where the terminal remembers each session's directory on
	// this backend: it records there where a command ended, and the
	// backend starts the session's next command from it.
	Dirs() *SessionDirs
	// Close releases what the backend holds (a connection).
	Close() error
}

// Located is implemented by a Backend whose commands do not run on the
// user's machine. Location says where they run, in words that replace
// "on the user's machine" in the tool's description.
type Located interface {
	Location() string
}

// Command is a foreground command for a Backend to run, with the limits
// of the terminal that asks.
type Command struct {
	// Text is the bash command, as the model wrote it.
	Text string
	// Timeout is how long it may run before it is killed.
	Timeout time.Duration
	// MaxOutputBytes and MaxOutputLines cap the output returned, as in
	// Options: the Capture of the output and its Snapshot take them.
	MaxOutputBytes int
	MaxOutputLines int
}

// Spawned is a background process a Backend started, before the
// terminal registers it for the process tool.
type Spawned struct {
	// PID is the process group the command leads.
	PID int
	// Cwd is the directory it started in; Note says why that is not the
	// remembered one, if it is not.
	Cwd  string
	Note string
	// Output is its stdout and stderr. The terminal reads it until every
	// holder of it is gone, which may be after the command exited (a
	// process it left running), and then closes it.
	Output io.ReadCloser
	// Stdin is its input, kept open for the process tool's write.
	Stdin Stdin
	// Wait waits for the command to exit and returns its exit code.
	Wait func() int
	// Signal, when set, replaces signalling the local process group PID:
	// it sends SIGKILL when kill is set, else SIGTERM (a remote
	// backend's processes run on another host).
	Signal func(kill bool)
}

// Stdin is the input of a background process. The process tool bounds
// each write with a deadline, since a process that does not read would
// block it for good.
type Stdin interface {
	io.WriteCloser
	SetWriteDeadline(time.Time) error
}

// localBackend runs commands on this machine with the shell.
type localBackend struct{ t *Terminal }

func (b localBackend) Where(inv tool.Invocation, workdir string) (Place, error) {
	at, err := b.t.dirs.start(inv)
	if err != nil {
		return Place{}, err
	}
	if workdir != "" {
		if at.Dir, err = resolveWorkdir(workdir, at.Dir); err != nil {
			return Place{}, err
		}
	}
	return at, nil
}

func (b localBackend) Run(ctx context.Context, cmd Command, p Place) (RunResult, error) {
	return b.t.run(ctx, cmd.Text, p.Dir, cmd.Timeout)
}

func (b localBackend) Spawn(ctx context.Context, command string, p Place) (Spawned, error) {
	s, err := b.t.spawn(command, p.Dir)
	if err != nil {
		return Spawned{}, fmt.Errorf("terminal: starting %s in %s: %w", b.t.shellPath, p.Dir, err)
	}
	s.Cwd, s.Note = p.Dir, p.Note
	return s, nil
}

func (b localBackend) Name() string { return b.t.shellPath }

func (b localBackend) Available() error {
	if b.t.shellErr != nil {
		return fmt.Errorf("terminal: shell %q unavailable: %w", b.t.opt.Shell, b.t.shellErr)
	}
	return nil
}

func (b localBackend) Dirs() *SessionDirs { return b.t.dirs }

func (b localBackend) Close() error { return nil }
