// Package email is hermes's email adapter: it reads one mailbox over IMAP
// (IDLE where the server has it, polling otherwise) and answers each mail
// over SMTP in its thread, so that a conversation by email is one hermes
// session per thread.
//
// Mail is a notification people read one by one and that machines answer
// automatically, so the adapter is careful in both directions: it sends
// only final answers (gateway.Caps.FinalOnly), marks its replies
// Auto-Submitted, and never answers automatic mail, mailing lists or its
// own address, so two robots cannot answer each other for ever.
package email

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// TLS is how a connection to a mail server is secured.
type TLS string

// The ways to secure a mail connection.
const (
	// NoTLS is plain text, for a server on this machine.
	NoTLS TLS = "none"
	// StartTLS upgrades a plain connection (IMAP 143, SMTP 587).
	StartTLS TLS = "starttls"
	// ImplicitTLS is TLS from the first byte (IMAP 993, SMTP 465).
	ImplicitTLS TLS = "tls"
)

// Server is one mail server.
type Server struct {
	// Addr is host:port.
	Addr string
	TLS  TLS
}

// Options configure an Adapter.
type Options struct {
	IMAP Server
	SMTP Server
	// Username and Password log in to both servers; the password is
	// never logged.
	Username string
	Password string
	// Address is hermes's own address: the From of replies.
	Address string
	// Mailbox is the folder read; "" means INBOX.
	Mailbox string
	// PollEvery is how often the mailbox is searched when the server
	// cannot IDLE; 0 means a minute.
	PollEvery time.Duration
	// AuthservID is the name the receiving mail server writes in
	// Authentication-Results (mx.google.com at Gmail); when set, a mail
	// is answered only if that server's record shows DKIM or DMARC
	// passing for the sender's domain, so a forged From gets nowhere.
	AuthservID string
	// MaxMailBytes is the largest mail read; bigger ones stay unread in
	// the mailbox for a person. 0 means 48 MB.
	MaxMailBytes int64
	// State keeps where reading stopped and each thread's last message
	// across restarts; nil keeps them in memory only.
	State State
	// TLSConfig is used for TLS connections; nil verifies the server's
	// certificate against the system's roots.
	TLSConfig *tls.Config
	// Logger gets what the adapter has to say; nil means slog.Default().
	Logger *slog.Logger
	// Clock times polls and backoffs and dates replies; nil means the
	// wall clock.
	Clock clock.Clock
}

// Adapter is the email platform. Its methods are safe for concurrent use.
type Adapter struct {
	o     Options
	from  string // Address, lower-cased, bare
	state State
	log   *slog.Logger
	clock clock.Clock
	// threadMu serializes sends, so that two replies in one thread do
	// not both answer the same last message.
	threadMu sync.Mutex
}

// New checks o and returns an Adapter; it connects to nothing until
// Receive or Send.
func New(o Options) (*Adapter, error) {
	for _, s := range []struct {
		name string
		srv  Server
	}{{"imap", o.IMAP}, {"smtp", o.SMTP}} {
		if _, _, err := net.SplitHostPort(s.srv.Addr); err != nil {
			return nil, fmt.Errorf("email: %s address %q is not host:port; give the server as mail.example.com:993", s.name, s.srv.Addr)
		}
		switch s.srv.TLS {
		case NoTLS, StartTLS, ImplicitTLS:
		default:
			return nil, fmt.Errorf("email: %s tls %q is not accepted; use none, starttls or tls", s.name, s.srv.TLS)
		}
	}
	addr, err := mail.ParseAddress(o.Address)
	if err != nil {
		return nil, fmt.Errorf("email: address %q is not an email address; give hermes's own, like hermes@example.com", o.Address)
	}
	if o.Username == "" {
		return nil, fmt.Errorf("email: the username is empty; give the mailbox's login")
	}
	if o.Mailbox == "" {
		o.Mailbox = "INBOX"
	}
	if o.PollEvery <= 0 {
		o.PollEvery = time.Minute
	}
	if o.MaxMailBytes <= 0 {
		o.MaxMailBytes = maxMailBytes
	}
	a := &Adapter{o: o, from: strings.ToLower(addr.Address), state: o.State, log: o.Logger, clock: clock.OrReal(o.Clock)}
	if a.state == nil {
		a.state = newMemState()
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	a.log = a.log.With("platform", "email")
	return a, nil
}

// Name returns "email".
func (a *Adapter) Name() string { return "email" }

// MaxText is the most bytes of text one reply carries; longer answers go
// on in a second mail of the thread.
const MaxText = 100_000

// Caps returns email's abilities: long plain-text messages counted in
// bytes, no edits, no buttons (approvals are answered with /approve and
// /deny), final answers only, and a gentle pace to the SMTP server.
func (a *Adapter) Caps() gateway.Caps {
	// One poller per mailbox: two would take the same mail.
	return gateway.Caps{MaxText: MaxText, FinalOnly: true, SendEvery: time.Second, OneConsumer: true}
}

// Edit returns gateway.ErrCannotEdit: a sent mail cannot be changed.
func (a *Adapter) Edit(context.Context, gateway.MessageRef, gateway.Outgoing) error {
	return gateway.ErrCannotEdit
}

// Answer does nothing: mail has no buttons to acknowledge.
func (a *Adapter) Answer(context.Context, gateway.Event, string) error { return nil }

// Typing does nothing: mail cannot show that a reply is being written.
func (a *Adapter) Typing(context.Context, gateway.Chat) error { return nil }

// cursorKey names the mailbox read in the state: the account, the server
// and the folder, so that another account or server starts afresh.
func (a *Adapter) cursorKey() string {
	return a.o.Username + " " + a.o.IMAP.Addr + " " + a.o.Mailbox
}

// tlsConfig is the TLS configuration for the server at addr: Options'
// or the system's roots, checking the certificate against addr's host.
func (a *Adapter) tlsConfig(addr string) *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if a.o.TLSConfig != nil {
		cfg = a.o.TLSConfig.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
	}
	return cfg
}

var _ gateway.Platform = (*Adapter)(nil)
