package terminal

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/hermes-go/hermes/tool"
)

// sessionDirs remembers each session's current directory between calls.
//
// Every call is a new shell, so a `cd` would be lost when it exits. The
// command is therefore wrapped (see wrapCommand) so that, after it
// finishes, the shell writes its final `pwd -P` to file descriptor 3, a
// pipe only hermes reads; the next call of the same session starts there.
// The command's own output is untouched. A command that leaves the shell
// early (`exit`, `exec`, a failure under `set -e`, a kill) writes nothing
// and leaves the directory as it was.
//
// Each entry also records the session's Workdir it started from: when the
// engine moves a session to another Workdir, the remembered directory is
// dropped and the new Workdir applies.
type sessionDirs struct {
	mu   sync.Mutex
	dirs map[string]sessionDir
}

type sessionDir struct {
	base string // the invocation's Workdir the entry was made under
	cwd  string // the directory the last command ended in
}

func newSessionDirs() *sessionDirs {
	return &sessionDirs{dirs: make(map[string]sessionDir)}
}

// place is where a call starts.
type place struct {
	base string // the session's Workdir, made absolute
	dir  string // the directory the command starts in
	note string // set when dir is not the remembered one because it vanished
	// workdir is the call's workdir argument, still to be resolved where
	// the command runs (ssh only; the local backend resolves it into dir).
	workdir string
}

// start returns where a call of the session starts.
func (d *sessionDirs) start(inv tool.Invocation) (place, error) {
	base, err := baseDir(inv)
	if err != nil {
		return place{}, err
	}
	d.mu.Lock()
	e, ok := d.dirs[inv.SessionID]
	d.mu.Unlock()
	if !ok || e.base != base || e.cwd == base {
		return place{base: base, dir: base}, nil
	}
	if isDir(e.cwd) {
		return place{base: base, dir: e.cwd}, nil
	}
	d.set(inv.SessionID, base, base)
	return place{base: base, dir: base, note: fmt.Sprintf("the previous working directory %s "+
		"no longer exists; this command ran in the session's directory %s instead", e.cwd, base)}, nil
}

// set remembers cwd as the session's directory under base.
func (d *sessionDirs) set(sessionID, base, cwd string) {
	d.mu.Lock()
	d.dirs[sessionID] = sessionDir{base: base, cwd: cwd}
	d.mu.Unlock()
}

// lookup returns the session's remembered entry.
func (d *sessionDirs) lookup(sessionID string) (sessionDir, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.dirs[sessionID]
	return e, ok
}

func (d *sessionDirs) forget(sessionID string) {
	d.mu.Lock()
	delete(d.dirs, sessionID)
	d.mu.Unlock()
}

// baseDir is the session's Workdir, or the process's directory when the
// invocation names none. A Workdir that does not exist is an error rather
// than a silent move elsewhere: running commands in an unexpected place is
// worse than not running them.
func baseDir(inv tool.Invocation) (string, error) {
	dir := inv.Workdir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", tool.Errorf(tool.CodeInternal, "no session working directory and the process's is unreadable: %v", err)
		}
		return wd, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil || !isDir(abs) {
		return "", tool.Errorf(tool.CodeNotFound, "the session's working directory %q does not exist or is not a directory", dir)
	}
	return abs, nil
}

// resolveWorkdir turns the workdir argument into an existing absolute
// directory, relative paths being taken from the session's directory.
func resolveWorkdir(arg, from string) (string, error) {
	dir := arg
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(from, dir)
	}
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return "", tool.Errorf(tool.CodeInvalidArguments, "workdir %q does not exist (resolved to %s); give an existing directory, absolute or relative to %s", arg, dir, from)
	case !fi.IsDir():
		return "", tool.Errorf(tool.CodeInvalidArguments, "workdir %q is a file, not a directory", arg)
	}
	return dir, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
