package email

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/email/mailtest"
)

// Over TLS, as at a provider: IMAP with implicit TLS and with STARTTLS,
// SMTP with STARTTLS and a login, each checking the server's
// certificate; a certificate the system does not trust is refused, and
// nothing is sent in the clear instead.
func TestTLS(t *testing.T) {
	s := mailtest.Start(t)
	trust := &tls.Config{RootCAs: s.Roots}
	for _, imapSrv := range []Server{{Addr: s.IMAPSAddr, TLS: ImplicitTLS}, {Addr: s.IMAPAddr, TLS: StartTLS}} {
		// A folder each, so one adapter never sees the other's mail.
		mailbox := "TLS-" + string(imapSrv.TLS)
		s.Create(t, mailbox)
		a, err := New(Options{IMAP: imapSrv, SMTP: Server{Addr: s.SMTPAddr, TLS: StartTLS}, Mailbox: mailbox,
			Username: s.User, Password: s.Password, Address: s.Address, PollEvery: time.Hour,
			TLSConfig: trust, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		events := make(chan gateway.Event, 1)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = a.Receive(ctx, func(_ context.Context, ev gateway.Event) error { events <- ev; return nil })
		}()
		id := "<tls-" + string(imapSrv.TLS) + "@example.com>"
		s.Deliver(t, mailbox, letter(id, "Over TLS", "", "Secure?"))
		var ev gateway.Event
		select {
		case ev = <-events:
		case <-time.After(eventTimeout):
			t.Fatalf("IMAP %s: no mail delivered within %s", imapSrv.TLS, eventTimeout)
		}
		cancel()
		<-done
		if ev.ID != id {
			t.Errorf("IMAP %s: event %s, want %s", imapSrv.TLS, ev.ID, id)
		}
		if _, err := a.Send(context.Background(), ev.Chat, gateway.Outgoing{Text: "Yes."}); err != nil {
			t.Fatalf("SMTP starttls: %v", err)
		}
		if got := s.Next(t); got.Header("In-Reply-To") != id {
			t.Errorf("reply over STARTTLS answers %q", got.Header("In-Reply-To"))
		}
	}

	// The system's roots do not know the test certificate.
	a, err := New(Options{IMAP: Server{Addr: s.IMAPSAddr, TLS: ImplicitTLS}, SMTP: Server{Addr: s.SMTPAddr, TLS: StartTLS},
		Username: s.User, Password: s.Password, Address: s.Address, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Send(context.Background(), gateway.Chat{ID: "ana@example.com", Type: gateway.DM}, gateway.Outgoing{Text: "x"})
	var se *gateway.SendError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("SMTP to an untrusted certificate: %v, want a certificate error", err)
	}
	// go-imap does not always wrap the TLS error: its text names it.
	if _, err := a.session(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("IMAP to an untrusted certificate: %v, want a certificate error", err)
	}
	if n := s.Count(t); n != 2 {
		t.Errorf("%d mails reached the server, want the 2 replies only", n)
	}
}

// A refused login says what to check, naming the user and never the
// password.
func TestLoginRefused(t *testing.T) {
	s := mailtest.Start(t)
	var logs strings.Builder
	var mu sync.Mutex
	a, err := New(Options{IMAP: Server{Addr: s.IMAPAddr, TLS: NoTLS}, SMTP: Server{Addr: s.SMTPAddr, TLS: NoTLS},
		Username: s.User, Password: "wrong-secret", Address: s.Address,
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.session(context.Background(), nil); err == nil {
		t.Fatal("a wrong password logged in")
	}
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	if !strings.Contains(out, "refused the login") || !strings.Contains(out, s.User) || strings.Contains(out, "wrong-secret") {
		t.Errorf("log:\n%s", out)
	}
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
