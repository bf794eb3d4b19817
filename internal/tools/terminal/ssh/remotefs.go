package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/crypto/ssh"

	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/files"
)

// remoteFSStderr caps the error output kept from a filesystem command.
const remoteFSStderr = 4096

// FileSystem returns the filesystem the file tools should work on so they
// see the same files as the commands: the remote host's. Pass it as
// files.Options.FS.
//
// On the host, each operation is a short command on a new session of the
// backend's connection, run by bash with tools of GNU coreutils and
// findutils (stat, head, readlink, mktemp, cat, mv, base64, find, xargs),
// so the host must be a GNU/Linux one, as for the terminal itself.
// search_files lists a whole level of directories, and reads up to 256
// files, per request. Relative paths start at the session's remote
// working directory, the one the terminal's next command of that session
// would start in (a `cd` moves it), and "~" is the remote $HOME, asked
// for once. Hosts whose login scripts print to stdout for non-interactive
// shells garble the answers, as they do the commands' output.
func (b *Backend) FileSystem() files.FS {
	return b.fs
}

var _ files.BatchFS = (*remoteFS)(nil)

// remoteFS is files.FS on the host of a Backend.
type remoteFS struct {
	b *Backend

	mu   sync.Mutex
	home string // the remote $HOME once known
}

// remoteError is a failed filesystem command on the host, with the cause
// it reported when one is recognised (fs.ErrNotExist, fs.ErrPermission,
// syscall.EISDIR).
type remoteError struct {
	msg   string
	cause error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.cause }

// classify makes an error of what a failed command wrote on stderr.
func (f *remoteFS) classify(op, name, stderr string, code int) error {
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", code)
	}
	var cause error
	switch {
	case strings.Contains(msg, "Is a directory"):
		cause = syscall.EISDIR
	case strings.Contains(msg, "No such file or directory"), strings.Contains(msg, "Not a directory"):
		cause = fs.ErrNotExist
	case strings.Contains(msg, "Permission denied"), strings.Contains(msg, "Operation not permitted"):
		cause = fs.ErrPermission
	}
	return &remoteError{msg: fmt.Sprintf("%s %s on %s: %s", op, name, f.b.Name(), msg), cause: cause}
}

// cappedBuffer keeps the first max bytes written to it and discards the
// rest, so a session never stalls on output nobody reads.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int64
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	room := c.max - int64(c.buf.Len())
	if int64(len(p)) > room {
		c.over = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// exec runs script with bash on the host, with args as $1, $2, ... and
// stdin as its input, keeping up to maxOut bytes of its output. It
// returns the output, the start of stderr and the exit status; err is
// set only when the command could not run to the end.
func (f *remoteFS) exec(ctx context.Context, script string, args []string, stdin []byte, maxOut int64) ([]byte, string, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", 0, err
	}
	c, sess, err := f.b.newSession(ctx)
	if err != nil {
		return nil, "", 0, err
	}
	defer sess.Close()
	out := &cappedBuffer{max: maxOut}
	errOut := &cappedBuffer{max: remoteFSStderr}
	sess.Stdout, sess.Stderr = out, errOut
	if stdin != nil {
		sess.Stdin = bytes.NewReader(stdin)
	}
	var cmd strings.Builder
	cmd.WriteString("env LC_ALL=C bash -c " + shellQuote(script) + " hermes-fs")
	for _, a := range args {
		cmd.WriteString(" " + shellQuote(a))
	}
	stop := context.AfterFunc(ctx, func() { sess.Close() })
	err = sess.Run(cmd.String())
	stop()
	if ctx.Err() != nil {
		return nil, "", 0, ctx.Err()
	}
	var exit *ssh.ExitError
	switch {
	case errors.As(err, &exit):
		return out.buf.Bytes(), errOut.buf.String(), exit.ExitStatus(), nil
	case err != nil:
		f.b.dropIfDead(c)
		return nil, "", 0, &tool.Error{Code: tool.CodeUpstreamUnavailable,
			Message: fmt.Sprintf("file access on %s failed: %v", f.b.Name(), err)}
	}
	return out.buf.Bytes(), errOut.buf.String(), 0, nil
}

// Home returns the remote $HOME, asked for once.
func (f *remoteFS) Home(ctx context.Context) (string, error) {
	f.mu.Lock()
	home := f.home
	f.mu.Unlock()
	if home != "" {
		return home, nil
	}
	out, stderr, code, err := f.exec(ctx, `printf '%s' "$HOME"`, nil, nil, 64<<10)
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", f.classify("reading $HOME", "", stderr, code)
	}
	home = path.Clean(string(out))
	if !path.IsAbs(home) {
		return "", nil
	}
	f.mu.Lock()
	f.home = home
	f.mu.Unlock()
	return home, nil
}

// Workdir is where the next command of the invocation's session would
// start: its remembered directory, else the configured start directory,
// else the remote home.
func (f *remoteFS) Workdir(ctx context.Context) (string, error) {
	dir := f.b.cfg.Dir
	if e, ok := f.b.dirs.Lookup(tool.InvocationFrom(ctx).SessionID); ok && e.Base == dir && e.Cwd != "" {
		dir = e.Cwd
	}
	if dir != "" {
		return dir, nil
	}
	return f.Home(ctx)
}

// fileKind turns find's %Y type letter into IsDir and Regular.
func fileKind(letter string) (isDir, regular bool) {
	return letter == "d", letter == "f"
}

// Stat describes name, links followed.
func (f *remoteFS) Stat(ctx context.Context, name string) (files.FileInfo, error) {
	out, stderr, code, err := f.exec(ctx, `exec stat -L -c '%F|%s|%a' -- "$1"`, []string{name}, nil, 4096)
	if err != nil {
		return files.FileInfo{}, err
	}
	if code != 0 {
		return files.FileInfo{}, f.classify("stat", name, stderr, code)
	}
	parts := strings.Split(strings.TrimSuffix(string(out), "\n"), "|")
	if len(parts) != 3 {
		return files.FileInfo{}, fmt.Errorf("stat %s on %s: unexpected output %q", name, f.b.Name(), out)
	}
	size, _ := strconv.ParseInt(parts[1], 10, 64)
	mode, _ := strconv.ParseUint(parts[2], 8, 32)
	return files.FileInfo{
		IsDir:   parts[0] == "directory",
		Regular: strings.HasPrefix(parts[0], "regular"), // "regular file", "regular empty file"
		Size:    size,
		Mode:    fs.FileMode(mode).Perm(),
	}, nil
}

// ReadFile returns the content of name, reading at most max+1 bytes.
func (f *remoteFS) ReadFile(ctx context.Context, name string, max int64) ([]byte, error) {
	const script = `if [ -d "$1" ]; then printf '%s: Is a directory\n' "$1" >&2; exit 1; fi
exec head -c "$2" -- "$1"`
	out, stderr, code, err := f.exec(ctx, script, []string{name, strconv.FormatInt(max+1, 10)}, nil, max+1)
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, f.classify("reading", name, stderr, code)
	}
	if int64(len(out)) > max {
		return nil, fmt.Errorf("reading %s on %s: %w", name, f.b.Name(), files.ErrTooLarge)
	}
	return out, nil
}

// remoteWrite replaces $1 with stdin through a temporary file in the same
// directory, renamed over it; see files.FS.WriteFile. It prints
// "created" or "replaced".
const remoteWrite = `p=$1
if [ -L "$p" ] && [ -e "$p" ]; then r=$(readlink -f -- "$p") && [ -n "$r" ] && p=$r; fi
if [ -d "$p" ]; then printf '%s: Is a directory\n' "$p" >&2; exit 1; fi
a=replaced m=644
if [ -e "$p" ]; then m=$(stat -L -c %a -- "$p") || exit 1; else a=created; fi
d=$(dirname -- "$p") && b=$(basename -- "$p") || exit 1
mkdir -p -- "$d" || exit 1
t=$(mktemp -- "$d/.$b.tmp-XXXXXXXX") || exit 1
trap 'rm -f -- "$t"' EXIT
cat > "$t" || exit 1
chmod -- "$m" "$t" || exit 1
sync -- "$t" 2>/dev/null
mv -f -- "$t" "$p" || exit 1
trap - EXIT
printf '%s' "$a"`

// WriteFile replaces name with data atomically.
func (f *remoteFS) WriteFile(ctx context.Context, name string, data []byte) (bool, error) {
	if data == nil {
		data = []byte{}
	}
	out, stderr, code, err := f.exec(ctx, remoteWrite, []string{name}, data, 64)
	if err != nil {
		return false, err
	}
	if code != 0 {
		return false, f.classify("writing", name, stderr, code)
	}
	switch string(out) {
	case "created":
		return true, nil
	case "replaced":
		return false, nil
	}
	return false, fmt.Errorf("writing %s on %s: unexpected answer %q", name, f.b.Name(), out)
}

// remoteList lists the directory $1 as NUL-terminated records "own-type
// followed-type size mode name", types as find's %y and %Y letters.
const remoteList = `if [ ! -e "$1" ]; then printf '%s: No such file or directory\n' "$1" >&2; exit 1; fi
if [ ! -d "$1" ]; then printf '%s: Not a directory\n' "$1" >&2; exit 1; fi
exec find "$1" -mindepth 1 -maxdepth 1 -printf '%y %Y %s %m %f\0'`

// maxListing caps the output of one directory listing.
const maxListing = 64 << 20

// ReadDir lists name in name order. The size of a symbolic link's target
// is not known (0); readers check sizes themselves.
func (f *remoteFS) ReadDir(ctx context.Context, name string) ([]files.DirEntry, error) {
	out, stderr, code, err := f.exec(ctx, remoteList, []string{name}, nil, maxListing)
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, f.classify("listing", name, stderr, code)
	}
	var entries []files.DirEntry
	for _, rec := range strings.Split(string(out), "\x00") {
		if e, ok := parseEntry(rec); ok {
			entries = append(entries, e)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, nil
}

// parseEntry parses one entry of remoteList.
func parseEntry(rec string) (files.DirEntry, bool) {
	fields := strings.SplitN(rec, " ", 5)
	if len(fields) != 5 {
		return files.DirEntry{}, false
	}
	size, _ := strconv.ParseInt(fields[2], 10, 64)
	mode, _ := strconv.ParseUint(fields[3], 8, 32)
	e := files.DirEntry{Name: fields[4], Link: fields[0] == "l"}
	e.Info.IsDir, e.Info.Regular = fileKind(fields[1])
	e.Info.Mode = fs.FileMode(mode).Perm()
	if !e.Link {
		e.Info.Size = size
	}
	return e, true
}

// Realpath resolves the links of name; missing components are kept.
func (f *remoteFS) Realpath(ctx context.Context, name string) (string, error) {
	out, stderr, code, err := f.exec(ctx, `exec readlink -m -- "$1"`, []string{name}, nil, 64<<10)
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", f.classify("resolving", name, stderr, code)
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}
