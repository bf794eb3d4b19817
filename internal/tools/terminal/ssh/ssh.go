// Package ssh is the ssh backend of the terminal tool: it runs the
// commands of a terminal.Terminal on a remote host over one persistent SSH
// connection (see Config), and gives the file tools that host's files
// (see Backend.FileSystem), so that commands and files are on one machine.
package ssh

import (
	"errors"
	"fmt"
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

	"github.com/hermes-go/hermes/internal/tools/terminal"
)

// Defaults of Config and timings of the ssh backend.
const (
	DefaultPort           = 22
	DefaultConnectTimeout = 15 * time.Second
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

// Config makes the terminal run commands on a remote host over one
// persistent SSH connection.
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
type Config struct {
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

// Backend runs commands on a remote host; pass it as
// terminal.Options.Backend (the Terminal closes it). The connection is dialled by
// the first command and shared by all of them, each on its own session
// (channel); a broken connection is redialled once when a command starts.
type Backend struct {
	cfg  Config
	addr string
	// cfgErr is a configuration mistake found by New.
	cfgErr error
	// dirs is each session's remote directory (see Dirs).
	dirs *terminal.SessionDirs
	fs   *remoteFS

	mu     sync.Mutex
	client *ssh.Client
	conn   net.Conn
	closed bool
}

// New returns the backend for cfg with its zero fields set to their
// defaults. A configuration mistake is reported by Available, not here,
// so hermes can still list the tool with the reason it is off.
func New(cfg Config) *Backend {
	b := &Backend{cfg: cfg, dirs: terminal.NewSessionDirs()}
	b.fs = &remoteFS{b: b}
	if b.cfg.Port == 0 {
		b.cfg.Port = DefaultPort
	}
	if b.cfg.ConnectTimeout <= 0 {
		b.cfg.ConnectTimeout = DefaultConnectTimeout
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

// Name is user@host:port, for messages.
func (b *Backend) Name() string {
	return "ssh " + b.cfg.User + "@" + b.addr
}

// Location names the host in the terminal tool's description.
func (b *Backend) Location() string {
	return "on the remote host " + b.cfg.Host + " over SSH (its files, not those of the machine hermes runs on)"
}

// Dirs is each session's remote directory, which the terminal keeps up to
// date and the remote filesystem starts relative paths from.
func (b *Backend) Dirs() *terminal.SessionDirs { return b.dirs }

// Available checks what can be checked without connecting: the
// configuration, the key file and the known_hosts file.
func (b *Backend) Available() error {
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

// Interface guards.
var (
	_ terminal.Backend = (*Backend)(nil)
	_ terminal.Located = (*Backend)(nil)
)
