// Package files is the built-in file toolset: read_file, write_file, patch
// and search_files. Names, parameters and behaviour follow Hermes Agent's
// file tools so skills and prompts written for Hermes work unchanged.
//
// Relative paths resolve against the session's working directory (from
// tool.Invocation) and "~" against the home directory. Writes go through a
// writeguard.Guard and are atomic: the new content is written to a
// temporary file beside the target and renamed over it, so a crash or a
// full disk never leaves a half-written file. Reads go through the same
// guard, which keeps .env files and hermes's own /proc entries out of the
// model's context.
//
// With Options.FS set, the tools work on that filesystem instead, such as
// the remote host the terminal's ssh backend runs commands on (see FS).
package files

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// Toolset is the toolset all four tools belong to.
const Toolset = "file"

// Defaults for the zero values of Options.
const (
	DefaultMaxReadChars   = 100_000
	DefaultReadLimit      = 500
	DefaultMaxLineChars   = 2000
	DefaultSearchLimit    = 50
	DefaultMaxSearchBytes = 2 << 20
)

// Options configures the tools. The zero value is usable: defaults apply
// and only the guard's home-independent rules protect writes.
type Options struct {
	// Guard decides which paths write_file and patch may change.
	Guard writeguard.Guard
	// Home expands a leading "~" in paths; empty means Guard.Home.
	Home string
	// MaxReadChars caps read_file's content; 0 means DefaultMaxReadChars.
	MaxReadChars int
	// MaxLineChars cuts longer lines in read_file and search_files output;
	// 0 means DefaultMaxLineChars.
	MaxLineChars int
	// MaxSearchBytes is the largest file search_files reads; 0 means
	// DefaultMaxSearchBytes.
	MaxSearchBytes int64
	// FS, when set, is the filesystem the tools read and write instead
	// of the local one, such as a remote host's (see FS). Home is then
	// ignored, and Guard applies with the FS's home directory.
	FS FS
}

func (o Options) withDefaults() Options {
	if o.Home == "" {
		o.Home = o.Guard.Home
	}
	if o.MaxReadChars <= 0 {
		o.MaxReadChars = DefaultMaxReadChars
	}
	if o.MaxLineChars <= 0 {
		o.MaxLineChars = DefaultMaxLineChars
	}
	if o.MaxSearchBytes <= 0 {
		o.MaxSearchBytes = DefaultMaxSearchBytes
	}
	return o
}

// New returns the four tools: read_file, write_file, patch, search_files.
func New(o Options) []tool.Tool {
	o = o.withDefaults()
	return []tool.Tool{&ReadFile{o: o}, &WriteFile{o: o}, &Patch{o: o}, &SearchFiles{o: o}}
}

// resolve turns the model's path into an absolute clean one: "~" is the
// home directory and relative paths start at the session's workdir (or
// the process's, when the invocation has none).
func (o Options) resolve(ctx context.Context, p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", tool.Errorf(tool.CodeInvalidArguments, "path is empty")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if o.Home == "" {
			return "", tool.Errorf(tool.CodeInvalidArguments, "cannot expand ~ in %q: the home directory is unknown; give an absolute path", p)
		}
		p = filepath.Join(o.Home, p[1:])
	}
	if !filepath.IsAbs(p) {
		base := tool.InvocationFrom(ctx).Workdir
		if base == "" {
			wd, err := os.Getwd()
			if err != nil {
				return "", tool.Errorf(tool.CodeInvalidArguments, "relative path %q but no working directory: give an absolute path", p)
			}
			base = wd
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), nil
}

// abs is resolve, on o.FS when it is set.
func (o Options) abs(ctx context.Context, p string) (string, error) {
	if o.FS != nil {
		return o.resolveFS(ctx, p)
	}
	return o.resolve(ctx, p)
}

// check is guard, on o.FS when it is set.
func (o Options) check(ctx context.Context, abs string) error {
	if o.FS != nil {
		return o.guardFS(ctx, abs)
	}
	return o.guard(abs)
}

// display is the name of abs in results, relative to o.FS's workdir when
// it is set.
func (o Options) display(ctx context.Context, abs string) string {
	if o.FS == nil {
		return display(ctx, abs)
	}
	wd, err := o.FS.Workdir(ctx)
	if err != nil || wd == "" {
		return abs
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(rel)
	}
	return abs
}

// display is how a result names abs: relative to the workdir when under
// it, so the model can pass it straight back, otherwise absolute.
func display(ctx context.Context, abs string) string {
	wd := tool.InvocationFrom(ctx).Workdir
	if wd == "" {
		return abs
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return abs
}

// checkRead refuses a file the tools must not read (.env files, hermes's
// own /proc entries), on o.FS when it is set, as a denied tool error.
func (o Options) checkRead(ctx context.Context, abs string) error {
	if o.FS == nil {
		if err := o.Guard.CheckRead(abs); err != nil {
			return tool.Errorf(tool.CodeDenied, "%v", err)
		}
		return nil
	}
	return o.checkReadFS(ctx, abs)
}

// readable reports whether a content search may read abs, found while
// walking; link says it is a symbolic link, whose target is checked too.
func (o Options) readable(ctx context.Context, abs string, link bool) bool {
	if link {
		return o.checkRead(ctx, abs) == nil
	}
	if o.FS == nil {
		return o.Guard.CheckReadName(abs) == nil
	}
	return remoteGuard().CheckReadName(abs) == nil
}

// guard checks abs against the write guard and turns a refusal into a
// denied tool error.
func (o Options) guard(abs string) error {
	if err := o.Guard.Check(abs); err != nil {
		return tool.Errorf(tool.CodeDenied, "%v", err)
	}
	return nil
}

// statError classifies an error from opening or stating p.
func statError(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notFound(p)
	case errors.Is(err, fs.ErrPermission):
		return tool.Errorf(tool.CodeDenied, "permission denied: %s", p)
	}
	return tool.Errorf(tool.CodeInternal, "%v", err)
}

// writeAtomic replaces the file at p with data: it writes a temporary file
// in the same directory, syncs it and renames it over p, so readers see
// the old or the new content, never a mix. An existing file keeps its
// mode; a symbolic link is followed, so the link stays and its target
// changes. It reports whether the file was created.
func writeAtomic(p string, data []byte) (created bool, err error) {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	mode := fs.FileMode(0o644)
	switch fi, err := os.Stat(p); {
	case err == nil && fi.IsDir():
		return false, tool.Errorf(tool.CodeInvalidArguments, "%s is a directory; give a file path", p)
	case err == nil:
		mode = fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, statError(p, err)
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, writeError(dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return false, writeError(dir, err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, writeError(p, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return false, writeError(p, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, writeError(p, err)
	}
	if err := tmp.Close(); err != nil {
		return false, writeError(p, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return false, writeError(p, err)
	}
	return created, nil
}

func writeError(p string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return tool.Errorf(tool.CodeDenied, "permission denied writing %s", p)
	}
	return tool.Errorf(tool.CodeInternal, "writing %s: %v", p, err)
}
