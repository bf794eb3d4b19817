package gateway

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/safety/redact"
	"github.com/hermes-go/hermes/safety/writeguard"
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
}

// check returns the file that may be sent for the path the model gave,
// or why it may not.
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
	return real, o.content(real)
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

// content opens the file as it is now and checks what it is.
func (o outbound) content(real string) error {
	f, err := openAttachment(real)
	if err != nil {
		return fmt.Errorf("it cannot be opened (%v)", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("it is not a regular file (%s)", fi.Mode().Type())
	case fi.Size() == 0:
		return errors.New("it is empty")
	case fi.Size() > o.max:
		return fmt.Errorf("it is %s, over the limit of %s for attachments", human(fi.Size()), human(o.max))
	case links(fi) > 1:
		return fmt.Errorf("it has %d names (hard links), so it may be a file from elsewhere under a name in the folder; only files with one name are attached", links(fi))
	}
	if kind := secretIn(f); kind != "" {
		return fmt.Errorf("it holds a secret (%s)", kind)
	}
	return nil
}

// secretChunk and secretOverlap are how a file is scanned for secrets: in
// pieces that overlap by more than any key's length, so a key across two
// pieces is still whole in one.
const (
	secretChunk   = 1 << 20
	secretOverlap = 16 << 10
)

// secretIn returns the kind of the first secret redact recognizes in r
// ("private_key"), or "".
func secretIn(r io.Reader) string {
	buf := make([]byte, secretChunk+secretOverlap)
	kept := 0
	for {
		n, err := io.ReadFull(r, buf[kept:])
		text := string(buf[:kept+n])
		if red := redact.Secrets(text); red != text {
			kind := "a key or token"
			if i := strings.Index(red, "[REDACTED:"); i >= 0 {
				if j := strings.IndexByte(red[i:], ']'); j > 0 {
					kind = red[i+len("[REDACTED:") : i+j]
				}
			}
			return kind
		}
		if err != nil {
			return ""
		}
		kept = copy(buf, buf[kept+n-secretOverlap:kept+n])
	}
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
