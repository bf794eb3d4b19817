package notify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/hermes-go/hermes/internal/clock"
)

// localTarget appends messages to a Markdown file under
// $HERMES_HOME/deliveries. It ends every chain: it needs no network and
// fails only when the disk does.
type localTarget struct {
	dir string
	// name fixes the file; empty means one file per job.
	name  string
	clock clock.Clock
}

func newLocal(cfg Config, name string) *localTarget {
	dir := ""
	if cfg.Home != "" {
		dir = filepath.Join(cfg.Home, "deliveries")
	}
	return &localTarget{dir: dir, name: name, clock: cfg.clock()}
}

func newLocalSpec(rest string, cfg Config) (*localTarget, error) {
	if rest != "" && fileName(rest) != rest {
		return nil, fmt.Errorf("a local name has only letters, digits, '-', '_' and inner '.'")
	}
	if cfg.Home == "" {
		return nil, fmt.Errorf("no hermes home directory is configured")
	}
	return newLocal(cfg, rest), nil
}

func (t *localTarget) String() string {
	if t.name != "" {
		return "local:" + t.name
	}
	return "local"
}

func (t *localTarget) Split(msg Message) []Part { return single(msg, msg.Text) }

// Path is the file msg goes to: <name>.md, where name is the target's,
// else the job's, else "messages".
func (t *localTarget) Path(msg Message) string {
	name := t.name
	if name == "" {
		name = orDefault(fileName(msg.Job), "messages")
	}
	return filepath.Join(t.dir, name+".md")
}

// Send appends one entry with a single write, so entries from concurrent
// runs never interleave.
func (t *localTarget) Send(_ context.Context, p Part) error {
	if t.dir == "" {
		return Permanent("local: no hermes home directory is configured")
	}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return &SendError{Msg: "local: cannot create the deliveries directory", Err: err}
	}
	path := t.Path(p.Msg)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return &SendError{Msg: "local: cannot open " + path, Err: err}
	}
	_, werr := f.WriteString(t.entry(p))
	cerr := f.Close()
	if werr != nil || cerr != nil {
		return &SendError{Msg: "local: cannot write " + path, Err: firstErr(werr, cerr)}
	}
	return nil
}

// entry is a "## <time> — <title>" heading, a line naming the job and
// run, the text and the link.
func (t *localTarget) entry(p Part) string {
	var b strings.Builder
	b.WriteString("## " + t.clock.Now().Format(time.RFC3339))
	if p.Msg.Title != "" {
		b.WriteString(" — " + p.Msg.Title)
	}
	b.WriteString("\n\n")
	var meta []string
	if p.Msg.Job != "" {
		meta = append(meta, "job: "+p.Msg.Job)
	}
	if p.Msg.RunID != "" {
		meta = append(meta, "run: "+p.Msg.RunID)
	}
	if p.Msg.Link != "" {
		meta = append(meta, p.Msg.Link)
	}
	if len(meta) > 0 {
		b.WriteString("_" + strings.Join(meta, " · ") + "_\n\n")
	}
	b.WriteString(strings.TrimRight(p.Text, "\n") + "\n\n")
	return b.String()
}

// fileName keeps letters (of any script), digits, '-', '_' and inner
// dots and drops the rest, so a job name cannot climb out of the
// deliveries directory.
func fileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		}
	}
	return strings.Trim(b.String(), ".")
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
