package ssh

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/hermes-go/hermes/internal/tool"
)

// signer loads the private key.
func (b *Backend) signer() (ssh.Signer, error) {
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
func (b *Backend) hostKeys() (ssh.HostKeyCallback, []string, error) {
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
func (b *Backend) connected(ctx context.Context) (*ssh.Client, error) {
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
func (b *Backend) dial(ctx context.Context) (*ssh.Client, net.Conn, error) {
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
		return nil, nil, fmt.Errorf("interrupted while connecting to %s: %w", b.Name(), ctx.Err())
	}
	if err != nil {
		return nil, nil, unavailable("terminal: cannot connect to %s: %v", b.Name(), err)
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
			return nil, nil, fmt.Errorf("interrupted while connecting to %s: %w", b.Name(), ctx.Err())
		}
		return nil, nil, unavailable("terminal: cannot log in to %s with key %s: %v", b.Name(), b.cfg.KeyFile, err)
	}
	_ = conn.SetDeadline(time.Time{})
	return ssh.NewClient(cc, chans, reqs), conn, nil
}

// keepAlive probes c until it closes, closing it when a probe fails or
// goes unanswered, so a dead connection is noticed and redialled.
func (b *Backend) keepAlive(c *ssh.Client) {
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
func (b *Backend) drop(c *ssh.Client) {
	b.mu.Lock()
	if b.client == c {
		b.client, b.conn = nil, nil
	}
	b.mu.Unlock()
	_ = c.Close()
}

// dropIfDead drops c when it no longer answers, and keeps it otherwise:
// other sessions' commands may be running on it.
func (b *Backend) dropIfDead(c *ssh.Client) {
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

// Close closes the connection; later commands fail.
func (b *Backend) Close() error {
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
func (b *Backend) newSession(ctx context.Context) (*ssh.Client, *ssh.Session, error) {
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
			Message: fmt.Sprintf("terminal: %s refused a new session: %v", b.Name(), err)}
	}
	b.drop(c)
	if c, err = b.connected(ctx); err != nil {
		return nil, nil, err
	}
	if s, err = c.NewSession(); err != nil {
		b.drop(c)
		return nil, nil, &tool.Error{Code: tool.CodeUpstreamUnavailable,
			Message: fmt.Sprintf("terminal: cannot open a session on %s after reconnecting: %v", b.Name(), err)}
	}
	return c, s, nil
}
