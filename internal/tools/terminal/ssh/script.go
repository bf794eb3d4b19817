package ssh

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/terminal"
)

// Where starts a session's call in its remembered remote directory, or
// in the configured one. Directories are checked on the host when the
// command runs, since checking them here would cost a round trip.
func (b *Backend) Where(inv tool.Invocation, workdir string) (terminal.Place, error) {
	p := terminal.Place{Base: b.cfg.Dir, Dir: b.cfg.Dir, Workdir: workdir}
	if e, ok := b.dirs.Lookup(inv.SessionID); ok && e.Base == p.Base {
		p.Dir = e.Cwd
	}
	return p, nil
}

// sshOuter is the script the remote login shell hands to bash. Its
// arguments: $1 the run's token, $2 the base directory, $3 the session's
// directory, $4 the call's workdir (each may be empty), $5 the watchdog's
// delay in seconds, 0 for a background process, which has no timeout and
// keeps stdin. It reads the command's script from stdin up to a NUL,
// moves to the right directory, starts the script with setsid (stdout and
// stderr on stdout, fd 3 on the control channel) and reports on stderr,
// as records "TOKEN KIND VALUE\0": start (the directory), gone (the
// remembered directory vanished), nobase / noworkdir (a directory is
// missing; nothing ran), pid (the process group), exit (the status).
// The watchdog checks every second that the group still exists and
// leaves when it is gone; the script also kills it, as a group and as a
// process, since a fast command can end before the watchdog has made its
// own session. outerScript puts the fixed environment first.
const sshOuter = `T=$1 b=$2 d=$3 w=$4 W=$5
unset CDPATH
r() { builtin printf '%s %s %s\0' "$T" "$1" "$2" >&2; }
IFS= builtin read -r -d '' s
if [ -n "$b" ]; then builtin cd -- "$b" 2>/dev/null || { r nobase "$b"; builtin exit 0; }; fi
if [ -n "$d" ] && [ "$d" != "$b" ] && ! builtin cd -- "$d" 2>/dev/null; then r gone "$d"; fi
if [ -n "$w" ]; then builtin cd -- "$w" 2>/dev/null || { r noworkdir "$w"; builtin exit 0; }; fi
r start "$(builtin pwd -P)"
if [ "$W" = 0 ]; then
  setsid bash -c "$s" <&0 3>/dev/null 2>&1 &
  p=$!
  r pid "$p"
  wait "$p"
  e=$?
else
  setsid bash -c "$s" </dev/null 3>&2 2>&1 &
  p=$!
  r pid "$p"
  setsid bash -c 'i=0; while [ "$i" -lt "$1" ] && kill -0 -- "-$2"; do sleep 1; i=$((i+1)); done; kill -0 -- "-$2" || exit 0; kill -TERM -- "-$2"; sleep 2; kill -KILL -- "-$2"' hermes-watchdog "$W" "$p" </dev/null >/dev/null 2>&1 &
  g=$!
  wait "$p"
  e=$?
  kill -- "-$g" "$g" 2>/dev/null
fi
r exit "$e"
`

// outerScript is sshOuter after a line that exports the variables local
// commands get as well (terminal.FixedEnv): no pager, no colour, no
// credential prompt.
func outerScript() string {
	vars := terminal.FixedEnv()
	for i, v := range vars {
		vars[i] = shellQuote(v)
	}
	return "export " + strings.Join(vars, " ") + "\n" + sshOuter
}

// sshScript is the command's script, wrapped as local ones are (see
// terminal.WrapCommand) but reporting the final directory as a control
// record on fd 3.
func sshScript(token, command string) string {
	return terminal.WrapCommand(command, "__hermes_pwd=$(builtin pwd -P 2>/dev/null) && builtin printf '%s pwd %s\\0' "+token+
		" \"$__hermes_pwd\" >&3\n")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sshControl collects the control records of one run.
type sshControl struct {
	token string
	mu    sync.Mutex
	recs  map[string]string
	other strings.Builder // stderr that is not a record, the start of it
	pid   chan struct{}   // closed when the pid record arrived
	done  chan struct{}   // closed at the exit record or the end of stderr
	once  sync.Once
	pOnce sync.Once
}

func newSSHControl(token string) *sshControl {
	return &sshControl{token: token, recs: map[string]string{},
		pid: make(chan struct{}), done: make(chan struct{})}
}

func (c *sshControl) read(r io.Reader) {
	defer c.once.Do(func() { close(c.done) })
	br := bufio.NewReader(r)
	for {
		rec, err := br.ReadString(0)
		if strings.HasSuffix(rec, "\x00") {
			c.record(strings.TrimSuffix(rec, "\x00"))
		} else {
			c.noise(rec)
		}
		if err != nil {
			return
		}
	}
}

func (c *sshControl) record(rec string) {
	i := strings.Index(rec, c.token+" ")
	if i < 0 {
		c.noise(rec)
		return
	}
	c.noise(rec[:i])
	kind, value, _ := strings.Cut(rec[i+len(c.token)+1:], " ")
	c.mu.Lock()
	c.recs[kind] = value
	c.mu.Unlock()
	switch kind {
	case "pid":
		c.pOnce.Do(func() { close(c.pid) })
	case "exit", "nobase", "noworkdir":
		c.once.Do(func() { close(c.done) })
	}
}

func (c *sshControl) noise(s string) {
	c.mu.Lock()
	if c.other.Len() < 1024 {
		c.other.WriteString(s)
	}
	c.mu.Unlock()
}

// noiseText is the start of what stderr carried besides records: the
// host's own complaint when the script could not run.
func (c *sshControl) noiseText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.TrimSpace(c.other.String())
}

// get returns a record's value and whether it arrived.
func (c *sshControl) get(kind string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.recs[kind]
	return v, ok
}

// pgid waits up to d for the pid record and returns the process group,
// or 0.
func (c *sshControl) pgid(d time.Duration) int {
	select {
	case <-c.pid:
	default:
		select {
		case <-c.pid:
		case <-time.After(d):
			return 0
		}
	}
	v, _ := c.get("pid")
	n, err := strconv.Atoi(v)
	if err != nil || n <= 1 {
		return 0
	}
	return n
}

// newToken is the marker of one run's control records, unguessable so
// nothing the command prints can pass for one.
func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "HERMES" + hex.EncodeToString(b[:])
}
