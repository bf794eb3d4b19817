package files

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// FS is a filesystem the tools work on instead of the local one, such as
// a remote host's. Paths are absolute, clean and slash-separated on that
// filesystem. Errors wrap fs.ErrNotExist or fs.ErrPermission when that is
// the cause, so the tools can tell the model what went wrong.
//
// With Options.FS set, relative paths start at Workdir and "~" is Home;
// the invocation's Workdir and Options.Home are not used, and the write
// guard checks paths with Home as its home directory.
type FS interface {
	// Home is the home directory of the filesystem's user.
	Home(ctx context.Context) (string, error)
	// Workdir is the directory relative paths of the invocation in ctx
	// start from.
	Workdir(ctx context.Context) (string, error)
	// Stat describes name, following symbolic links.
	Stat(ctx context.Context, name string) (FileInfo, error)
	// ReadFile returns the content of name, or an error wrapping
	// ErrTooLarge when it is longer than max bytes.
	ReadFile(ctx context.Context, name string, max int64) ([]byte, error)
	// WriteFile replaces name with data atomically (a temporary file in
	// the same directory renamed over it), creating missing parent
	// directories; an existing file keeps its mode and a symbolic link is
	// followed. It reports whether the file was created.
	WriteFile(ctx context.Context, name string, data []byte) (created bool, err error)
	// ReadDir lists the directory name in name order.
	ReadDir(ctx context.Context, name string) ([]DirEntry, error)
	// Realpath resolves the symbolic links of name, which need not exist.
	Realpath(ctx context.Context, name string) (string, error)
}

// FileInfo describes a file of an FS, symbolic links followed.
type FileInfo struct {
	IsDir   bool
	Regular bool
	Size    int64
	Mode    fs.FileMode // permission bits
}

// DirEntry is one entry of a directory of an FS. Link tells a symbolic
// link; Info describes what it leads to (the zero FileInfo for a dangling
// link).
type DirEntry struct {
	Name string
	Link bool
	Info FileInfo
}

// ErrTooLarge is wrapped by FS.ReadFile for a file over its limit.
var ErrTooLarge = tooLargeError{}

type tooLargeError struct{}

func (tooLargeError) Error() string { return "file too large" }

// maxRemoteRead is the largest file read_file reads through an FS, which
// has no streaming read.
const maxRemoteRead = 32 << 20

// resolveFS is resolve for o.FS: slash-separated paths, "~" the FS's home
// and relative paths from its workdir.
func (o Options) resolveFS(ctx context.Context, p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", tool.Errorf(tool.CodeInvalidArguments, "path is empty")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := o.FS.Home(ctx)
		if err != nil {
			return "", fsError(err)
		}
		if home == "" {
			return "", tool.Errorf(tool.CodeInvalidArguments, "cannot expand ~ in %q: the home directory is unknown; give an absolute path", p)
		}
		p = path.Join(home, p[1:])
	}
	if !path.IsAbs(p) {
		wd, err := o.FS.Workdir(ctx)
		if err != nil {
			return "", fsError(err)
		}
		if wd == "" {
			return "", tool.Errorf(tool.CodeInvalidArguments, "relative path %q but no working directory: give an absolute path", p)
		}
		p = path.Join(wd, p)
	}
	return path.Clean(p), nil
}

// fsError passes tool errors and context errors through and makes others
// internal tool errors.
func fsError(err error) error {
	var te *tool.Error
	if errors.As(err, &te) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return tool.Errorf(tool.CodeInternal, "%v", err)
}

// guardFS checks abs, and the path its links lead to, against the guard
// with the FS's home as the home directory. HermesHome is taken to be
// under that home; SafeRoots apply as configured.
func (o Options) guardFS(ctx context.Context, abs string) error {
	home, err := o.FS.Home(ctx)
	if err != nil {
		return fsError(err)
	}
	g := writeguard.Guard{Home: home, SafeRoots: o.Guard.SafeRoots}
	if home == "" {
		// Without a home the home rules cannot apply; refuse rather
		// than let ~/.ssh through.
		return tool.Errorf(tool.CodeDenied, "writing %s is not allowed: the remote home directory is unknown, so protected files cannot be recognised", abs)
	}
	if err := g.Check(abs); err != nil {
		return tool.Errorf(tool.CodeDenied, "%v", err)
	}
	real, err := o.FS.Realpath(ctx, abs)
	if err != nil {
		return fsError(err)
	}
	if real != "" && real != abs {
		if err := g.Check(real); err != nil {
			return tool.Errorf(tool.CodeDenied, "%v (%s leads to %s)", err, abs, real)
		}
	}
	return nil
}

// remoteGuard judges reads on another host: by name, since hermes has no
// process there and the host's links are resolved on it.
func remoteGuard() writeguard.Guard { return writeguard.Guard{Pid: -1} }

// checkReadFS is checkRead on o.FS: abs and the path its links lead to.
func (o Options) checkReadFS(ctx context.Context, abs string) error {
	if err := remoteGuard().CheckReadName(abs); err != nil {
		return tool.Errorf(tool.CodeDenied, "%v", err)
	}
	real, err := o.FS.Realpath(ctx, abs)
	if err != nil || real == "" || real == abs {
		return nil // a missing file fails when it is read
	}
	if err := remoteGuard().CheckReadName(real); err != nil {
		return tool.Errorf(tool.CodeDenied, "%v (%s leads to %s)", err, abs, real)
	}
	return nil
}

// notFoundFS is notFound for a path of o.FS.
func (o Options) notFoundFS(ctx context.Context, p string) error {
	dir := path.Dir(p)
	entries, err := o.FS.ReadDir(ctx, dir)
	if err != nil {
		return tool.Errorf(tool.CodeNotFound, "%s does not exist (nor does its directory %s); search for the file with search_files (target \"files\")", p, dir)
	}
	names := make([]string, len(entries))
	dirs := make([]bool, len(entries))
	for i, e := range entries {
		names[i], dirs[i] = e.Name, e.Info.IsDir && !e.Link
	}
	return suggest(p, dir, names, dirs)
}

// statErrorFS classifies an error of o.FS about p.
func (o Options) statErrorFS(ctx context.Context, p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return o.notFoundFS(ctx, p)
	case errors.Is(err, fs.ErrPermission):
		return tool.Errorf(tool.CodeDenied, "permission denied: %s", p)
	}
	return fsError(err)
}

// writeErrorFS classifies an error of o.FS writing p.
func writeErrorFS(p string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return tool.Errorf(tool.CodeDenied, "permission denied writing %s", p)
	}
	var te *tool.Error
	if errors.As(err, &te) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return tool.Errorf(tool.CodeInternal, "writing %s: %v", p, err)
}

// stat describes abs, links followed, on o.FS or the local filesystem;
// errors are tool errors.
func (o Options) stat(ctx context.Context, abs string) (FileInfo, error) {
	if o.FS != nil {
		fi, err := o.FS.Stat(ctx, abs)
		if err != nil {
			return FileInfo{}, o.statErrorFS(ctx, abs, err)
		}
		return fi, nil
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return FileInfo{}, statError(abs, err)
	}
	return FileInfo{IsDir: fi.IsDir(), Regular: fi.Mode().IsRegular(), Size: fi.Size(), Mode: fi.Mode().Perm()}, nil
}

// write replaces abs with data atomically, on o.FS or the local
// filesystem, and reports whether it was created.
// A local write is put to the invocation's approver first when it judges
// writes (tool.WriteApprover); abs is the local path it can resolve.
func (o Options) write(ctx context.Context, abs string, data []byte) (bool, error) {
	if o.FS == nil {
		if err := approveWrite(ctx, abs); err != nil {
			return false, err
		}
		if before := tool.InvocationFrom(ctx).BeforeWrite; before != nil {
			if err := before(abs); err != nil {
				return false, tool.Errorf(tool.CodeInternal, "%s was not changed: its checkpoint could not be saved: %v", abs, err)
			}
		}
		if w := hooksFrom(ctx).WriteText; w != nil && len(data) > 0 {
			return writeThrough(ctx, w, abs, data)
		}
		return writeAtomic(abs, data)
	}
	created, err := o.FS.WriteFile(ctx, abs, data)
	if errors.Is(err, syscall.EISDIR) {
		return false, tool.Errorf(tool.CodeInvalidArguments, "%s is a directory; give a file path", abs)
	}
	if err != nil {
		return false, writeErrorFS(abs, err)
	}
	return created, nil
}

// BatchFS is an FS on which each request is costly, such as one over a
// network: search_files then lists a whole level of directories and reads
// many files per request instead of one at a time.
type BatchFS interface {
	FS
	// ReadDirs lists the directories names, each in name order; one that
	// cannot be listed gives an empty listing.
	ReadDirs(ctx context.Context, names []string) ([][]DirEntry, error)
	// ReadFiles returns the content of each of names; one that cannot be
	// read, or is longer than max bytes, gives nil.
	ReadFiles(ctx context.Context, names []string, max int64) ([][]byte, error)
	// Exist reports which of names exist (links followed).
	Exist(ctx context.Context, names []string) ([]bool, error)
}
