package gateway

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/writeguard"
)

// outbound decides which files a reply may attach. A reply is the
// model's text, and the model reads web pages and files written by
// others, so "attach ~/.ssh/id_rsa" can be someone else's instruction:
// only files hermes made or received for the chat go out. That is a file
// in the chat's session folder or in the gateway's working directory
// (symbolic links resolved, so a link cannot lead out), which is not
// where secrets are kept (writeguard's rules: $HERMES_HOME with its .env
// and config, ~/.ssh, cloud credentials, .env files) nor hidden (where
// programs keep settings and keys no list names), a regular file (not
// a FIFO or device, which would hang or stream forever) with no second
// name (a hard link makes a key look like a file in the folder), no
// bigger than max, and holding no secret the redactor recognizes (a key
// copied into the folder).
type outbound struct {
	// folders are the chat's session folders, workdir the gateway's.
	folders []string
	workdir string
	guard   writeguard.Guard
	max     int64
	// tmp is where the copies sent are made ("" for the system's).
	tmp string
}

// check returns a copy of the file the model named, to send, or why it
// may not go.
func (o outbound) check(name string) (string, error) {
	p := strings.TrimSpace(name)
	if p == "" {
		return "", errors.New("it names no file")
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok && o.guard.Home != "" {
		p = filepath.Join(o.guard.Home, rest)
	}
	if !filepath.IsAbs(p) {
		if o.workdir == "" {
			return "", errors.New("a relative path needs a working directory, and the gateway has none; give the absolute path")
		}
		p = filepath.Join(o.workdir, p)
	}
	p = filepath.Clean(p)
	if err := o.guard.CheckRead(p); err != nil {
		return "", refusedBy(err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", errors.New("it does not exist")
	}
	if err := o.place(real); err != nil {
		return "", err
	}
	return o.take(real)
}

// place checks where the file really is.
func (o outbound) place(real string) error {
	for _, dir := range o.folders {
		if rel, ok := within(dir, real); ok {
			// The folder is inside $HERMES_HOME, which the guard keeps
			// whole; its name rules (.env, a repository's config) still
			// apply.
			return cmp.Or(hidden(rel), refusedBy(writeguard.Guard{}.Check(real)))
		}
	}
	if rel, ok := within(o.workdir, real); ok {
		return cmp.Or(hidden(rel), refusedBy(o.guard.Check(real)))
	}
	where := "the chat's files"
	if len(o.folders) > 0 {
		where += " (" + o.folders[len(o.folders)-1] + ")"
	}
	if o.workdir != "" {
		where += " or the working directory (" + o.workdir + ")"
	}
	return fmt.Errorf("it is %s, outside %s; only files made or received there can be attached", real, where)
}

// take opens the file as it is now, checks what it is, and copies it
// aside, to a folder of its own under tmp: what is sent is the copy of
// the bytes checked, which a link or a write put in place after the
// check cannot change (the platform opens the file by name, later, and
// the outbox may hold it a while). The caller removes the copy's folder.
func (o outbound) take(real string) (string, error) {
	f, err := openAttachment(real)
	if err != nil {
		return "", fmt.Errorf("it cannot be opened (%v)", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	switch {
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("it is not a regular file (%s)", fi.Mode().Type())
	case fi.Size() == 0:
		return "", errors.New("it is empty")
	case fi.Size() > o.max:
		return "", fmt.Errorf("it is %s, over the limit of %s for attachments", human(fi.Size()), human(o.max))
	case links(fi) > 1:
		return "", fmt.Errorf("it has %d names (hard links), so it may be a file from elsewhere under a name in the folder; only files with one name are attached", links(fi))
	}
	dir, err := os.MkdirTemp(o.tmp, "hermes-attach-")
	if err != nil {
		return "", err
	}
	copied, err := copyScanned(f, filepath.Join(dir, filepath.Base(real)), o.max)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return copied, nil
}

// copyScanned copies what r holds to a new file at path, scanning it for
// secrets as it goes; a secret, or more than max bytes (the file grew
// since it was measured), is refused.
func copyScanned(r io.Reader, path string, max int64) (string, error) {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	counted := &counter{w: out}
	kind := secretIn(io.TeeReader(io.LimitReader(r, max+1), counted))
	if err := cmp.Or(counted.err, out.Close()); err != nil {
		return "", err
	}
	switch {
	case kind != "":
		return "", fmt.Errorf("it holds a secret (%s)", kind)
	case counted.n > max:
		return "", fmt.Errorf("it grew past the limit of %s for attachments while it was read", human(max))
	}
	return path, nil
}

// counter writes to w and counts what it wrote, keeping the first error
// (which TeeReader would return to a reader that does not look).
type counter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if c.err == nil {
		c.err = err
	}
	return n, err
}

// within reports whether p is dir or lies under it, dir's own links
// resolved, and where in it.
func within(dir, p string) (string, bool) {
	if dir == "" {
		return "", false
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	rel, err := filepath.Rel(dir, p)
	ok := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	return rel, ok
}

// hidden refuses a path with a hidden part below the folder it is in.
// Dotfiles and dot-folders are where programs keep settings and
// credentials, more of them than any list names (~/.gnupg, ~/.config/gh,
// a browser's cookies, a repository's .git/config with a token in a
// remote): when hermes serve runs in the home directory, they are all in
// its working directory.
func hidden(rel string) error {
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") && part != "." {
			return fmt.Errorf("%s is hidden, and hidden files and folders hold settings and credentials (~/.gnupg, ~/.config), so none is attached", part)
		}
	}
	return nil
}

// refusedBy words a guard's refusal for the chat: the rule, not the
// guard's advice to the file tools. Nil stays nil.
func refusedBy(err error) error {
	var d *writeguard.DeniedError
	if errors.As(err, &d) {
		return errors.New(d.Rule)
	}
	return err
}
