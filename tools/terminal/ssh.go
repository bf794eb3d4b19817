package terminal

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/hermes-go/hermes/tool"
)

// Defaults of SSHConfig and timings of the ssh backend.
const (
	DefaultSSHPort           = 22
	DefaultSSHConnectTimeout = 15 * time.Second
	// sshKeepAlive is how often an idle connection is probed; a probe
	// unanswered for as long closes it, so the next command redials
	// instead of hanging on a dead peer.
	sshKeepAlive = 30 * time.Second
	// sshSignalTimeout bounds the short session that signals a remote
	// process group.
	sshSignalTimeout = 5 * time.Second
	// sshWatchdogSlack is how long after its timeout a remote command is
	// killed by the watchdog that runs beside it on the host, for when
	// hermes cannot reach the host to kill it itself.
	sshWatchdogSlack = 5 * time.Second
)

// SSHConfig makes the terminal run foreground commands on a remote host
// over one persistent SSH connection.
//
// Each command is a fresh `bash -c` on the host, started with setsid so
// it and everything it starts form one process group; a timeout sends
// that group SIGTERM and then SIGKILL through a second short session,
// and an interrupt sends SIGKILL. A watchdog started beside each command
// on the host kills the group a few seconds after its timeout even when
// the connection is gone. The host needs bash and setsid (util-linux).
//
// No local environment variable is forwarded: commands see the remote
// login environment plus the same fixed pager and colour settings as
// local ones, so hermes's own secrets never reach the host and there is
// nothing to scrub there.
type SSHConfig struct {
	// Host is the host name or address to connect to; required.
	Host string
	// Port is the SSH port (22 if zero).
	Port int
	// User is the remote user name; empty means the local user's name.
	User string
	// KeyFile is the private key to log in with, unencrypted (OpenSSH,
	// PEM or PKCS#8). Empty means the first of ~/.ssh/id_ed25519,
	// ~/.ssh/id_ecdsa and ~/.ssh/id_rsa that exists.
	KeyFile string
	// KnownHostsFile lists the host keys that are trusted, in OpenSSH's
	// known_hosts format (~/.ssh/known_hosts if empty). The host must be
	// in it: an unknown key or a changed one is refused.
	KnownHostsFile string
	// InsecureIgnoreHostKey accepts any host key. It makes the connection
	// open to interception and must be an explicit choice.
	InsecureIgnoreHostKey bool
	// ConnectTimeout bounds connecting and the SSH handshake (15 s if
	// zero).
	ConnectTimeout time.Duration
	// Dir is the absolute remote directory sessions start in; empty means
	// the remote user's login directory.
	Dir string
}

// sshBackend runs commands on a remote host. The connection is dialled by
// the first command and shared by all of them, each on its own session
// (channel); a broken connection is redialled once when a command starts.
type sshBackend struct {
	t    *Terminal
	cfg  SSHConfig
	addr string
	// cfgErr is a configuration mistake found by newSSHBackend.
	cfgErr error

	mu     sync.Mutex
	client *ssh.Client
	conn   net.Conn
	closed bool
}

func newSSHBackend(t *Terminal, cfg SSHConfig) *sshBackend {
	b := &sshBackend{t: t, cfg: cfg}
	if b.cfg.Port == 0 {
		b.cfg.Port = DefaultSSHPort
	}
	if b.cfg.ConnectTimeout <= 0 {
		b.cfg.ConnectTimeout = DefaultSSHConnectTimeout
	}
	home, _ := os.UserHomeDir()
	if b.cfg.User == "" {
		if u, err := user.Current(); err == nil {
			b.cfg.User = u.Username
		} else {
			b.cfg.User = os.Getenv("USER")
		}
	}
	b.cfg.KeyFile = expandHome(b.cfg.KeyFile, home)
	if b.cfg.KeyFile == "" && home != "" {
		for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			p := filepath.Join(home, ".ssh", name)
			if _, err := os.Stat(p); err == nil {
				b.cfg.KeyFile = p
				break
			}
		}
	}
	b.cfg.KnownHostsFile = expandHome(b.cfg.KnownHostsFile, home)
	if b.cfg.KnownHostsFile == "" && home != "" {
		b.cfg.KnownHostsFile = filepath.Join(home, ".ssh", "known_hosts")
	}
	b.addr = net.JoinHostPort(b.cfg.Host, strconv.Itoa(b.cfg.Port))
	switch {
	case b.cfg.Host == "":
		b.cfgErr = errors.New("terminal: the ssh backend has no host configured")
	case b.cfg.Port < 0 || b.cfg.Port > 65535:
		b.cfgErr = fmt.Errorf("terminal: ssh port %d is out of range", b.cfg.Port)
	case b.cfg.User == "":
		b.cfgErr = errors.New("terminal: the ssh backend has no user configured and the local user is unknown")
	case b.cfg.KeyFile == "":
		b.cfgErr = errors.New("terminal: the ssh backend has no key file configured and none of ~/.ssh/id_ed25519, id_ecdsa, id_rsa exists")
	case b.cfg.Dir != "" && !strings.HasPrefix(b.cfg.Dir, "/"):
		b.cfgErr = fmt.Errorf("terminal: the ssh start directory %q is not absolute", b.cfg.Dir)
	case !b.cfg.InsecureIgnoreHostKey && b.cfg.KnownHostsFile == "":
		b.cfgErr = errors.New("terminal: the ssh backend has no known_hosts file configured and no home directory to find one in")
	}
	return b
}

// expandHome turns a leading "~/" into the home directory.
func expandHome(path, home string) string {
	if home != "" && (path == "~" || strings.HasPrefix(path, "~/")) {
		return filepath.Join(home, path[1:])
	}
	return path
}

// name is user@host:port, for messages.
func (b *sshBackend) name() string {
	return "ssh " + b.cfg.User + "@" + b.addr
}

// available checks what can be checked without connecting: the
// configuration, the key file and the known_hosts file.
func (b *sshBackend) available() error {
	if b.cfgErr != nil {
		return b.cfgErr
	}
	if _, err := b.signer(); err != nil {
		return err
	}
	if !b.cfg.InsecureIgnoreHostKey {
		if _, err := knownhosts.New(b.cfg.KnownHostsFile); err != nil {
			return fmt.Errorf("terminal: ssh known_hosts file %s is unusable (%v); if you trust %s, "+
				"create it with `ssh-keyscan -p %d %s >> %s` and compare the fingerprints with the host's own",
				b.cfg.KnownHostsFile, err, b.cfg.Host, b.cfg.Port, b.cfg.Host, b.cfg.KnownHostsFile)
		}
	}
	return nil
}

// signer loads the private key.
func (b *sshBackend) signer() (ssh.Signer, error) {
	pem, err := os.ReadFile(b.cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("terminal: ssh key file unreadable: %w", err)
	}
	s, err := ssh.ParsePrivateKey(pem)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		return nil, fmt.Errorf("terminal: ssh key file %s is protected by a passphrase, which is not supported; "+
			"use a key without one, readable only by hermes's user", b.cfg.KeyFile)
	}
	if err != nil {
		return nil, fmt.Errorf("terminal: ssh key file %s is not a private key: %w", b.cfg.KeyFile, err)
	}
	return s, nil
}

// hostKeyError is a refused host key, with the message saying what to do.
type hostKeyError struct{ msg string }

func (e *hostKeyError) Error() string { return e.msg }

// hostKeys returns the host key check and the key algorithms to ask the
// host for: those of the keys known_hosts holds for it, so a host that
// also has keys of other types presents the one that can be checked.
func (b *sshBackend) hostKeys() (ssh.HostKeyCallback, []string, error) {
	if b.cfg.InsecureIgnoreHostKey {
		return ssh.InsecureIgnoreHostKey(), nil, nil
	}
	file := b.cfg.KnownHostsFile
	check, err := knownhosts.New(file)
	if err != nil {
		return nil, nil, fmt.Errorf("terminal: ssh known_hosts file %s is unusable: %w", file, err)
	}
	keyscan := fmt.Sprintf("ssh-keyscan -p %d %s >> %s", b.cfg.Port, b.cfg.Host, file)
	cb := func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := check(hostname, remote, key)
		var ke *knownhosts.KeyError
		if !errors.As(err, &ke) {
			return err
		}
		fp := key.Type() + " " + ssh.FingerprintSHA256(key)
		if len(ke.Want) == 0 {
			return &hostKeyError{fmt.Sprintf("the host key of %s (%s) is not in %s, so the host cannot be "+
				"trusted; if this is the right host, add its key with `%s` and check the fingerprint against "+
				"the host's own (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` on it)", b.addr, fp, file, keyscan)}
		}
		return &hostKeyError{fmt.Sprintf("the host key of %s (%s) does not match the one recorded in %s:%d: "+
			"the host was reinstalled or the connection is being intercepted, so it is refused; if the change "+
			"is expected, remove the old entry with `ssh-keygen -R '%s' -f %s` and add the new one with `%s`",
			b.addr, fp, ke.Want[0].Filename, ke.Want[0].Line, knownhosts.Normalize(b.addr), file, keyscan)}
	}
	return cb, knownAlgorithms(check, b.addr), nil
}

// knownAlgorithms asks check about a throwaway key: the mismatch it
// reports lists the keys known for addr, whose types are the algorithms to
// offer. It returns nil (every algorithm) when none is known.
func knownAlgorithms(check ssh.HostKeyCallback, addr string) []string {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil
	}
	probe, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		return nil
	}
	var ke *knownhosts.KeyError
	if !errors.As(check(addr, &net.TCPAddr{IP: net.IPv4zero}, probe), &ke) {
		return nil
	}
	var algos []string
	seen := map[string]bool{}
	add := func(a ...string) {
		for _, s := range a {
			if !seen[s] {
				seen[s] = true
				algos = append(algos, s)
			}
		}
	}
	for _, k := range ke.Want {
		switch t := k.Key.Type(); t {
		case ssh.KeyAlgoRSA:
			add(ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		default:
			add(t)
		}
	}
	return algos
}

// connected returns the shared client, dialling it when there is none.
func (b *sshBackend) connected(ctx context.Context) (*ssh.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("the terminal was closed")
	}
	if b.client != nil {
		return b.client, nil
	}
	c, conn, err := b.dial(ctx)
	if err != nil {
		return nil, err
	}
	b.client, b.conn = c, conn
	go b.keepAlive(c)
	return c, nil
}

// dial connects and logs in. Errors are tool errors that say what to fix.
func (b *sshBackend) dial(ctx context.Context) (*ssh.Client, net.Conn, error) {
	unavailable := func(format string, a ...any) error {
		return &tool.Error{Code: tool.CodeUpstreamUnavailable, Message: fmt.Sprintf(format, a...)}
	}
	signer, err := b.signer()
	if err != nil {
		return nil, nil, unavailable("%v", err)
	}
	check, algos, err := b.hostKeys()
	if err != nil {
		return nil, nil, unavailable("%v", err)
	}
	cfg := &ssh.ClientConfig{
		User:              b.cfg.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback:   check,
		HostKeyAlgorithms: algos,
		Timeout:           b.cfg.ConnectTimeout,
	}
	d := net.Dialer{Timeout: b.cfg.ConnectTimeout, KeepAlive: sshKeepAlive}
	conn, err := d.DialContext(ctx, "tcp", b.addr)
	if err != nil && ctx.Err() != nil {
		return nil, nil, fmt.Errorf("interrupted while connecting to %s: %w", b.name(), ctx.Err())
	}
	if err != nil {
		return nil, nil, unavailable("terminal: cannot connect to %s: %v", b.name(), err)
	}
	_ = conn.SetDeadline(time.Now().Add(b.cfg.ConnectTimeout))
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	cc, chans, reqs, err := ssh.NewClientConn(conn, b.addr, cfg)
	stopped := stop()
	if err != nil {
		conn.Close()
		var hk *hostKeyError
		if errors.As(err, &hk) {
			return nil, nil, &tool.Error{Code: tool.CodeDenied, Message: "terminal: " + hk.msg}
		}
		if !stopped {
			return nil, nil, fmt.Errorf("interrupted while connecting to %s: %w", b.name(), ctx.Err())
		}
		return nil, nil, unavailable("terminal: cannot log in to %s with key %s: %v", b.name(), b.cfg.KeyFile, err)
	}
	_ = conn.SetDeadline(time.Time{})
	return ssh.NewClient(cc, chans, reqs), conn, nil
}

// keepAlive probes c until it closes, closing it when a probe fails or
// goes unanswered, so a dead connection is noticed and redialled.
func (b *sshBackend) keepAlive(c *ssh.Client) {
	done := make(chan struct{})
	go func() {
		_ = c.Wait()
		close(done)
	}()
	tick := time.NewTicker(sshKeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-done:
			b.drop(c)
			return
		case <-tick.C:
		}
		answered := make(chan error, 1)
		go func() {
			_, _, err := c.SendRequest("keepalive@openssh.com", true, nil)
			answered <- err
		}()
		var err error
		select {
		case <-done:
			b.drop(c)
			return
		case err = <-answered:
		case <-time.After(sshKeepAlive):
			err = errors.New("no answer")
		}
		if err != nil {
			b.drop(c)
			return
		}
	}
}

// drop closes c and forgets it if it is still the shared client.
func (b *sshBackend) drop(c *ssh.Client) {
	b.mu.Lock()
	if b.client == c {
		b.client, b.conn = nil, nil
	}
	b.mu.Unlock()
	_ = c.Close()
}

// dropIfDead drops c when it no longer answers, and keeps it otherwise:
// other sessions' commands may be running on it.
func (b *sshBackend) dropIfDead(c *ssh.Client) {
	answered := make(chan error, 1)
	go func() {
		_, _, err := c.SendRequest("keepalive@openssh.com", true, nil)
		answered <- err
	}()
	select {
	case err := <-answered:
		if err == nil {
			return
		}
	case <-time.After(sshSignalTimeout):
	}
	b.drop(c)
}

// close closes the connection; later commands fail.
func (b *sshBackend) close() error {
	b.mu.Lock()
	c := b.client
	b.client, b.conn, b.closed = nil, nil, true
	b.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	return nil
}

// newSession opens a session, redialling once when the connection turns
// out to be broken.
func (b *sshBackend) newSession(ctx context.Context) (*ssh.Client, *ssh.Session, error) {
	c, err := b.connected(ctx)
	if err != nil {
		return nil, nil, err
	}
	s, err := c.NewSession()
	if err == nil {
		return c, s, nil
	}
	var open *ssh.OpenChannelError
	if errors.As(err, &open) {
		// The host refused the session (too many at once, say); the
		// connection itself is fine.
		return nil, nil, &tool.Error{Code: tool.CodeUpstreamUnavailable,
			Message: fmt.Sprintf("terminal: %s refused a new session: %v", b.name(), err)}
	}
	b.drop(c)
	if c, err = b.connected(ctx); err != nil {
		return nil, nil, err
	}
	if s, err = c.NewSession(); err != nil {
		b.drop(c)
		return nil, nil, &tool.Error{Code: tool.CodeUpstreamUnavailable,
			Message: fmt.Sprintf("terminal: cannot open a session on %s after reconnecting: %v", b.name(), err)}
	}
	return c, s, nil
}

// where starts a session's call in its remembered remote directory, or
// in the configured one. Directories are checked on the host when the
// command runs, since checking them here would cost a round trip.
func (b *sshBackend) where(inv tool.Invocation, workdir string) (place, error) {
	p := place{base: b.cfg.Dir, dir: b.cfg.Dir, workdir: workdir}
	if e, ok := b.t.dirs.lookup(inv.SessionID); ok && e.base == p.base {
		p.dir = e.cwd
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
// own session.
const sshOuter = `T=$1 b=$2 d=$3 w=$4 W=$5
unset CDPATH
r() { builtin printf '%s %s %s\0' "$T" "$1" "$2" >&2; }
export TERM=dumb PAGER=cat GIT_PAGER=cat NO_COLOR=1 GIT_TERMINAL_PROMPT=0
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

// sshScript is the command's script, as wrapCommand makes it locally but
// reporting the final directory as a control record on fd 3.
func sshScript(token, command string) string {
	return "{ " + command + "\n__hermes_ec=$?; } 3>&-\n" +
		"__hermes_pwd=$(builtin pwd -P 2>/dev/null) && builtin printf '%s pwd %s\\0' " + token +
		" \"$__hermes_pwd\" >&3\n" +
		"builtin exit \"$__hermes_ec\"\n"
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

// sshRun is one started remote run.
type sshRun struct {
	client *ssh.Client
	sess   *ssh.Session
	stdin  io.WriteCloser
	stdout io.Reader
	ctl    *sshControl
}

// start opens a session and starts sshOuter in it for place p, with the
// watchdog delay in seconds (0 for a background process). The caller
// writes the command's script and a NUL to stdin, and reads stdout; the
// control records are being read.
func (b *sshBackend) start(ctx context.Context, p place, watchdog int) (*sshRun, error) {
	c, sess, err := b.newSession(ctx)
	if err != nil {
		return nil, err
	}
	r := &sshRun{client: c, sess: sess, ctl: newSSHControl(newToken())}
	var stderr io.Reader
	if r.stdin, err = sess.StdinPipe(); err == nil {
		if r.stdout, err = sess.StdoutPipe(); err == nil {
			stderr, err = sess.StderrPipe()
		}
	}
	if err != nil {
		sess.Close()
		return nil, err
	}
	remote := "env -u SSH_CLIENT -u SSH2_CLIENT bash -c " + shellQuote(sshOuter) + " hermes " + r.ctl.token + " " +
		shellQuote(p.base) + " " + shellQuote(p.dir) + " " + shellQuote(p.workdir) + " " + strconv.Itoa(watchdog)
	if err := sess.Start(remote); err != nil {
		sess.Close()
		b.dropIfDead(c)
		return nil, err
	}
	go r.ctl.read(stderr)
	return r, nil
}

// placeErr is the error for a missing directory the run reported, or nil.
func (b *sshBackend) placeErr(ctl *sshControl) error {
	if dir, ok := ctl.get("nobase"); ok {
		return tool.Errorf(tool.CodeNotFound, "the remote start directory %s does not exist on %s or is not a directory; nothing ran", dir, b.name())
	}
	if dir, ok := ctl.get("noworkdir"); ok {
		return tool.Errorf(tool.CodeInvalidArguments, "workdir %q does not exist on %s or is not a directory (relative paths start at the session's directory); nothing ran", dir, b.name())
	}
	return nil
}

// startNote is the note for a run that could not start in the session's
// remembered directory, or "".
func startNote(ctl *sshControl) string {
	gone, ok := ctl.get("gone")
	if !ok {
		return ""
	}
	start, _ := ctl.get("start")
	return fmt.Sprintf("the previous working directory %s no longer exists; this command ran in "+
		"the session's directory %s instead", gone, start)
}

// run runs command on the host. Output handling matches the local run:
// one capture of the tail, drainGrace for output left by processes the
// command put in the background.
func (b *sshBackend) run(ctx context.Context, command string, p place, timeout time.Duration) (runResult, error) {
	r, err := b.start(ctx, p, int((timeout+sshWatchdogSlack)/time.Second)+1)
	if err != nil {
		return runResult{}, err
	}
	c, sess, stdout, ctl := r.client, r.sess, r.stdout, r.ctl
	defer sess.Close()
	go func() {
		_, _ = io.WriteString(r.stdin, sshScript(ctl.token, command)+"\x00")
		_ = r.stdin.Close()
	}()
	capt := newCapture(b.t.opt.MaxOutputBytes)
	drained := make(chan struct{})
	go func() {
		_, _ = io.Copy(capt, stdout)
		close(drained)
	}()

	res := runResult{cause: exited}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-ctl.done:
	case <-timer.C:
		// The signals go out on sessions of their own without waiting
		// for them, so stopping takes about 3*killGrace at most, within
		// the dispatcher's slack.
		res.cause = timedOut
		pg := ctl.pgid(killGrace)
		go b.signal(c, pg, "TERM")
		select {
		case <-ctl.done:
		case <-time.After(killGrace):
		}
		go b.signal(c, pg, "KILL")
	case <-ctx.Done():
		res.cause = interrupted
		go b.signal(c, ctl.pgid(killGrace), "KILL")
	}
	if res.cause != exited {
		select {
		case <-ctl.done:
		case <-time.After(killGrace):
		}
	}
	select {
	case <-drained:
	case <-time.After(drainGrace):
	}
	res.out = capt.snapshot(b.t.opt.MaxOutputLines)
	_ = sess.Close()

	if err := b.placeErr(ctl); err != nil {
		return runResult{}, err
	}
	res.start, _ = ctl.get("start")
	res.note = startNote(ctl)
	if res.cause != exited {
		res.exitCode = exitTimeout
		return res, nil
	}
	status, ok := ctl.get("exit")
	if !ok {
		b.dropIfDead(c)
		msg := ctl.noiseText()
		if msg == "" {
			msg = "the connection or the session ended first"
		}
		return runResult{}, &tool.Error{Code: tool.CodeUpstreamUnavailable,
			Message: fmt.Sprintf("terminal: no exit status from %s (%s); the command may still be running there "+
				"until its watchdog kills it at the timeout; the output so far is in data", b.name(), msg),
			Data: Result{Output: res.out.text, ExitCode: -1, Cwd: res.start, Truncated: res.out.truncated}}
	}
	if res.exitCode, err = strconv.Atoi(status); err != nil {
		res.exitCode = -1
	}
	res.cwd, _ = ctl.get("pwd")
	return res, nil
}

// signal sends sig to the remote process group pg through a short
// session of its own. It does nothing when the group is unknown or the
// connection is gone: the watchdog on the host is the last resort.
func (b *sshBackend) signal(c *ssh.Client, pg int, sig string) {
	if pg <= 1 {
		return
	}
	s, err := c.NewSession()
	if err != nil {
		return
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { done <- s.Run(fmt.Sprintf("kill -s %s -- -%d 2>/dev/null; true", sig, pg)) }()
	select {
	case <-done:
	case <-time.After(sshSignalTimeout):
	}
}

// spawn starts command at p in the background on the host and returns
// the process, the directory it started in and a note, the way the local
// spawn does. Its stdin stays open for the process tool's write; the
// directory report goes nowhere, as a background command does not move
// the session. The process's group is signalled through short sessions;
// if the connection drops, the process is reported exited with code -1
// and whatever it left on the host keeps running until its output has
// nowhere to go.
func (b *sshBackend) spawn(ctx context.Context, command string, p place) (*bgProc, string, string, error) {
	r, err := b.start(ctx, p, 0)
	if err != nil {
		return nil, "", "", err
	}
	fail := func(err error) (*bgProc, string, string, error) {
		r.sess.Close()
		return nil, "", "", err
	}
	if _, err := io.WriteString(r.stdin, sshScript(r.ctl.token, command)+"\x00"); err != nil {
		return fail(fmt.Errorf("terminal: sending the command to %s: %w", b.name(), err))
	}
	wait := time.NewTimer(b.cfg.ConnectTimeout)
	defer wait.Stop()
	select {
	case <-r.ctl.pid:
	case <-r.ctl.done:
	case <-ctx.Done():
		return fail(fmt.Errorf("terminal: interrupted while starting the command on %s: %w", b.name(), ctx.Err()))
	case <-wait.C:
	}
	if err := b.placeErr(r.ctl); err != nil {
		return fail(err)
	}
	pg := r.ctl.pgid(0)
	if pg == 0 {
		msg := r.ctl.noiseText()
		if msg == "" {
			msg = "no process group was reported"
		}
		return fail(&tool.Error{Code: tool.CodeUpstreamUnavailable,
			Message: fmt.Sprintf("terminal: the command did not start on %s: %s", b.name(), msg)})
	}
	start, _ := r.ctl.get("start")
	ctl := r.ctl
	bp := &bgProc{
		command: command,
		cwd:     start,
		pid:     pg,
		out:     newRing(b.t.opt.ProcessOutputBytes),
		stdin:   &sshStdin{w: r.stdin},
		done:    make(chan struct{}),
		drained: make(chan struct{}),
		signal: func(kill bool) {
			sig := "TERM"
			if kill {
				sig = "KILL"
			}
			b.signal(r.client, pg, sig)
		},
	}
	bp.wait = func() int {
		<-ctl.done
		status, ok := ctl.get("exit")
		if !ok {
			return -1
		}
		code, err := strconv.Atoi(status)
		if err != nil {
			return -1
		}
		return code
	}
	go func() {
		// Until every holder of the output is gone; the session goes
		// with it.
		_, _ = io.Copy(bp.out, r.stdout)
		close(bp.drained)
		r.sess.Close()
	}()
	return bp, start, startNote(ctl), nil
}

// sshStdin gives a session's stdin the write deadline the process tool
// sets. A write that misses it goes on in the background, and later
// writes fail rather than interleave with it. Calls are serialised by
// bgProc.stdinMu.
type sshStdin struct {
	w        io.WriteCloser
	deadline time.Time
	broken   error
}

func (s *sshStdin) SetWriteDeadline(t time.Time) error {
	s.deadline = t
	return nil
}

func (s *sshStdin) Write(p []byte) (int, error) {
	if s.broken != nil {
		return 0, s.broken
	}
	if s.deadline.IsZero() {
		return s.w.Write(p)
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	buf := append([]byte(nil), p...)
	go func() {
		n, err := s.w.Write(buf)
		done <- result{n, err}
	}()
	timer := time.NewTimer(time.Until(s.deadline))
	defer timer.Stop()
	select {
	case r := <-done:
		return r.n, r.err
	case <-timer.C:
		s.broken = errors.New("an earlier write is still waiting for the process to read")
		return 0, os.ErrDeadlineExceeded
	}
}

func (s *sshStdin) Close() error { return s.w.Close() }
