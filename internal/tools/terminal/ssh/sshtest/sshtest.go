//go:build unix

// Package sshtest starts a real sshd on a loopback port for tests: its
// own host key, a user key for the current user and a known_hosts file,
// all in a temporary directory, stopped when the test ends. Tests skip,
// saying what to install, when sshd is missing.
package sshtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

const sshdPath = "/usr/sbin/sshd"

// Server is an sshd of its own on a loopback port, with a host key, a
// user key and a known_hosts file for it in a temporary directory.
type Server struct {
	Dir        string
	Port       int
	User       string
	KeyFile    string
	KnownHosts string
}

// lockedBuffer collects sshd's log, written by exec's copier.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// WriteKey writes a new ed25519 private key in OpenSSH format to path
// and returns its public key.
func WriteKey(t testing.TB, path string) ssh.PublicKey {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sshPub
}

// Start starts sshd for the test, skipping it when sshd is not
// installed; it is stopped when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := os.Stat(sshdPath); err != nil {
		t.Skipf("ssh backend tests need a real sshd at %s (apt-get install openssh-server): %v", sshdPath, err)
	}
	for _, prog := range []string{"bash", "setsid"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("ssh backend tests need %s on the host: %v", prog, err)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Skipf("no current user: %v", err)
	}
	// sshd refuses to start without its privilege separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Skipf("sshd needs /run/sshd, which cannot be made: %v", err)
	}
	dir := t.TempDir()
	s := &Server{Dir: dir, User: u.Username, KeyFile: filepath.Join(dir, "id_ed25519"),
		KnownHosts: filepath.Join(dir, "known_hosts")}
	hostKey := filepath.Join(dir, "host_ed25519")
	hostPub := WriteKey(t, hostKey)
	userPub := WriteKey(t, s.KeyFile)
	authKeys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authKeys, ssh.MarshalAuthorizedKey(userPub), 0o600); err != nil {
		t.Fatal(err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	config := filepath.Join(dir, "sshd_config")
	conf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile %s
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
MaxSessions 50
MaxStartups 50
`, s.Port, hostKey, authKeys, filepath.Join(dir, "sshd.pid"))
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}

	var log lockedBuffer
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", config)
	cmd.Stdout = &log
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("sshd log:\n%s", log.String())
		}
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("sshd exited at start:\n%s", log.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd does not accept connections on %s:\n%s", addr, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	line := knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostPub) + "\n"
	if err := os.WriteFile(s.KnownHosts, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}
