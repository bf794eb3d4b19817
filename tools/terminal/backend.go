package terminal

import (
	"context"
	"time"

	"github.com/hermes-go/hermes/tool"
)

// backend is where foreground commands run: the local machine (bash in
// its own session) or a remote host over SSH. Call checks the arguments,
// asks the backend where the command starts, obtains approval, and then
// has the backend run it; the output cap, the timeout message and the
// per-session directory bookkeeping are shared.
type backend interface {
	// where resolves the place a call of inv starts, before approval, so
	// a call that cannot run is refused without asking anyone. workdir is
	// the call's workdir argument, "" when it gave none.
	where(inv tool.Invocation, workdir string) (place, error)
	// run runs command at p, killing it when timeout passes or ctx is
	// done.
	run(ctx context.Context, command string, p place, timeout time.Duration) (runResult, error)
	// name says what runs commands, for error messages.
	name() string
	// available reports why the backend cannot run commands, or nil.
	available() error
	// close releases what the backend holds (a connection).
	close() error
}

// localBackend runs commands on this machine with the shell.
type localBackend struct{ t *Terminal }

func (b localBackend) where(inv tool.Invocation, workdir string) (place, error) {
	at, err := b.t.dirs.start(inv)
	if err != nil {
		return place{}, err
	}
	if workdir != "" {
		if at.dir, err = resolveWorkdir(workdir, at.dir); err != nil {
			return place{}, err
		}
	}
	return at, nil
}

func (b localBackend) run(ctx context.Context, command string, p place, timeout time.Duration) (runResult, error) {
	return b.t.run(ctx, command, p.dir, timeout)
}

func (b localBackend) name() string { return b.t.shellPath }

func (b localBackend) available() error { return b.t.shellErr }

func (b localBackend) close() error { return nil }
