package terminal

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/hermes-go/hermes/internal/tool"
)

// SessionDirs remembers each session's current directory between calls.
//
// Every call is a new shell, so a `cd` would be lost when it exits. The
// command is therefore wrapped (see WrapCommand) so that, after it
// finishes, the shell writes its final `pwd -P` to file descriptor 3, a
// pipe only hermes reads; the next call of the same session starts there.
// The command's own output is untouched. A command that leaves the shell
// early (`exit`, `exec`, a failure under `set -e`, a kill) writes nothing
// and leaves the directory as it was.
//
// Each entry also records the session's Workdir it started from: when the
// engine moves a session to another Workdir, the remembered directory is
// dropped and the new Workdir applies. A Backend that runs commands
// elsewhere keeps its own SessionDirs (see Backend.Dirs); the Terminal
// records in it where each command ended.
type SessionDirs struct {
	mu   sync.Mutex
	dirs map[string]SessionDir
}

// SessionDir is what SessionDirs remembers of one session.
type SessionDir struct {
	Base string // the invocation's Workdir the entry was made under
	Cwd  string // the directory the last command ended in
}

// NewSessionDirs returns an empty SessionDirs.
func NewSessionDirs() *SessionDirs {
	return &SessionDirs{dirs: make(map[string]SessionDir)}
}

// Place is where a call starts.
type Place struct {
	Base string // the session's Workdir, made absolute
	Dir  string // the directory the command starts in
	Note string // set when Dir is not the remembered one because it vanished
	// Workdir is the call's workdir argument, still to be resolved where
	// the command runs (by a remote Backend; the local one resolves it
	// into Dir).
	Workdir string
}

// start returns where a call of the session starts.
func (d *SessionDirs) start(inv tool.Invocation) (Place, error) {
	base, err := baseDir(inv)
	if err != nil {
		return Place{}, err
	}
	d.mu.Lock()
	e, ok := d.dirs[inv.SessionID]
	d.mu.Unlock()
	if !ok || e.Base != base || e.Cwd == base {
		return Place{Base: base, Dir: base}, nil
	}
	if isDir(e.Cwd) {
		return Place{Base: base, Dir: e.Cwd}, nil
	}
	d.set(inv.SessionID, base, base)
	return Place{Base: base, Dir: base, Note: VanishedNote(e.Cwd, base)}, nil
}

// VanishedNote tells the model that the session's remembered directory
// gone no longer exists, so its command ran in the session's directory
// dir instead.
func VanishedNote(gone, dir string) string {
	return fmt.Sprintf("the previous working directory %s "+
		"no longer exists; this command ran in the session's directory %s instead", gone, dir)
}

// set remembers cwd as the session's directory under base.
func (d *SessionDirs) set(sessionID, base, cwd string) {
	d.mu.Lock()
	d.dirs[sessionID] = SessionDir{Base: base, Cwd: cwd}
	d.mu.Unlock()
}

// Lookup returns the session's remembered entry.
func (d *SessionDirs) Lookup(sessionID string) (SessionDir, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.dirs[sessionID]
	return e, ok
}

func (d *SessionDirs) forget(sessionID string) {
	d.mu.Lock()
	delete(d.dirs, sessionID)
	d.mu.Unlock()
}

// WrapCommand makes the script the shell runs: the command in a brace
// group, so a `cd` in it changes the shell's own directory, followed by
// report, a line that reports that directory on file descriptor 3, and
// an exit with the command's status. The group runs with fd 3 closed, so nothing
// the command starts can write to it, and the exit status is saved inside
// the group, so a command that is only a comment still makes a valid
// script. The command keeps the line numbers the model wrote in error
// messages.
func WrapCommand(command, report string) string {
	return "{ " + command + "\n__hermes_ec=$?; } 3>&-\n" + report +
		"builtin exit \"$__hermes_ec\"\n"
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
