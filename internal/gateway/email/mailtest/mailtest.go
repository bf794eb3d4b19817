// Package mailtest runs real mail servers for the email gateway's tests:
// Dovecot for IMAP (the mailbox hermes reads, with IDLE) and Mailpit as
// the SMTP server hermes sends to, whose HTTP API shows what arrived.
// Both run from a temporary directory on free loopback ports and stop
// when the test ends. A test that needs them is skipped, with a message
// naming what to install, when they are missing (scripts/install-test-deps.sh
// installs both).
package mailtest

import (
	"bufio"
	"crypto/x509"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startTimeout bounds how long a server may take to start.
const startTimeout = 30 * time.Second

// Server is a Dovecot and a Mailpit for one test.
type Server struct {
	// IMAPAddr is Dovecot's IMAP host:port, plain text or STARTTLS;
	// IMAPSAddr its implicit-TLS one.
	IMAPAddr, IMAPSAddr string
	// SMTPAddr is Mailpit's SMTP host:port, plain text or STARTTLS; it
	// accepts any login.
	SMTPAddr string
	// Roots trusts the servers' self-signed certificate (for 127.0.0.1
	// and localhost).
	Roots *x509.CertPool
	// APIURL is Mailpit's HTTP root.
	APIURL string
	// User and Password log in to Dovecot; Address is the mailbox's
	// address.
	User, Password, Address string

	sent chan string
}

// Options change the servers from their defaults.
type Options struct {
	// NoIdle makes Dovecot leave IDLE out of its capabilities, as some
	// servers do, so clients have to poll.
	NoIdle bool
}

// Start starts both servers, or skips the test when one is not
// installed.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith is Start with o.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	dovecot := findDovecot()
	if dovecot == "" {
		t.Skip("mailtest: dovecot is not installed (apt-get install dovecot-imapd, or run scripts/install-test-deps.sh)")
	}
	mailpit := findMailpit()
	if mailpit == "" {
		t.Skip("mailtest: mailpit is not installed (scripts/install-test-deps.sh builds it into .tools/bin; or set HERMES_MAILPIT to its path)")
	}
	s := &Server{User: "hermes@example.com", Password: "imap-password", Address: "hermes@example.com"}
	cert, key, roots := writeCert(t, t.TempDir())
	s.Roots = roots
	s.startDovecot(t, dovecot, cert, key, o)
	s.startMailpit(t, mailpit, cert, key)
	return s
}

func findDovecot() string {
	if p, err := exec.LookPath("dovecot"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/dovecot"); err == nil {
		return "/usr/sbin/dovecot"
	}
	return ""
}

// findMailpit looks for mailpit where HERMES_MAILPIT says, in the
// repository's .tools/bin (found from the working directory up to
// go.mod), then on PATH.
func findMailpit() string {
	if p := os.Getenv("HERMES_MAILPIT"); p != "" {
		return p
	}
	if dir, err := os.Getwd(); err == nil {
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				p := filepath.Join(dir, ".tools", "bin", "mailpit")
				if _, err := os.Stat(p); err == nil {
					return p
				}
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if p, err := exec.LookPath("mailpit"); err == nil {
		return p
	}
	return ""
}

// freePort returns a loopback host:port nothing listens on now.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// run starts cmd and waits until a line of its output (stdout and stderr
// together) contains ready; the process is stopped when the test ends.
func run(t testing.TB, name string, cmd *exec.Cmd, ready string) {
	t.Helper()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("mailtest: starting %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		pw.Close()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	found := make(chan struct{})
	var out strings.Builder
	go func() {
		sc := bufio.NewScanner(pr)
		seen := false
		for sc.Scan() {
			if !seen {
				out.WriteString(sc.Text() + "\n")
			}
			if !seen && strings.Contains(sc.Text(), ready) {
				seen = true
				close(found)
			}
		}
		if !seen {
			close(found)
		}
	}()
	select {
	case <-found:
		select {
		case <-exited:
			t.Fatalf("mailtest: %s exited at start:\n%s", name, out.String())
		default:
		}
	case <-time.After(startTimeout):
		t.Fatalf("mailtest: %s did not start within %s", name, startTimeout)
	}
}

// listening waits until addr takes connections. The servers log that
// they start just before they listen, and say nothing after, so there is
// no line to wait for: this dials until a connection is taken.
func listening(t testing.TB, name, addr string) {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("mailtest: %s is not listening on %s after %s: %v", name, addr, startTimeout, err)
		}
		time.Sleep(wait)
	}
}
