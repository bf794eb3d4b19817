package email

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/email/mailtest"
)

// After a restart the adapter goes on where it stopped: a mail it took
// is not offered again even when someone marked it unread meanwhile, and
// the next reply in a thread still answers the thread's last message.
func TestRestartGoesOnWhereItStopped(t *testing.T) {
	s := mailtest.Start(t)
	state := newMemState() // what state.db keeps (gwstore)
	r := receive(t, s, "INBOX", state)
	uid := s.Deliver(t, "INBOX", letter("<a@example.com>", "Plans", "", "First."))
	ev := r.next(t)
	if _, err := r.a.Send(context.Background(), ev.Chat, gateway.Outgoing{Text: "Answer."}); err != nil {
		t.Fatal(err)
	}
	first := s.Next(t)
	r.settle(t, s, "INBOX")
	r.stop()

	s.MarkUnread(t, "INBOX", uid)
	r = receive(t, s, "INBOX", state)
	s.Deliver(t, "INBOX", letter("<b@example.com>", "Other", "", "Second."))
	if ev := r.next(t); ev.ID != "<b@example.com>" {
		t.Errorf("after the restart the first mail delivered is %s, want only the new one", ev.ID)
	}
	if _, err := r.a.Send(context.Background(), ev.Chat, gateway.Outgoing{Text: "More."}); err != nil {
		t.Fatal(err)
	}
	if got := s.Next(t); got.Header("In-Reply-To") != first.Header("Message-Id") {
		t.Errorf("the reply after the restart answers %q, want hermes's last reply %q", got.Header("In-Reply-To"), first.Header("Message-Id"))
	}
	r.none(t)
}

// A mailbox numbered afresh (a new UIDVALIDITY) is read again from its
// unread mail: new mail at low UIDs is not missed, and a mail that was
// answered before comes with the same id, which the gateway's Seen drops.
func TestUIDValidityChangeReadsAfresh(t *testing.T) {
	s := mailtest.Start(t)
	s.Create(t, "Hermes")
	state := newMemState()
	r := receive(t, s, "Hermes", state)
	s.Deliver(t, "Hermes", letter("<a@example.com>", "One", "", "1"))
	s.Deliver(t, "Hermes", letter("<b@example.com>", "Two", "", "2"))
	seen := map[string]bool{}
	for range 2 {
		seen[r.next(t).ID] = true
	}
	r.stop()

	s.Recreate(t, "Hermes")
	s.Deliver(t, "Hermes", letter("<a@example.com>", "One", "", "1")) // the old mail, renumbered
	s.Deliver(t, "Hermes", letter("<c@example.com>", "Three", "", "3"))
	r = receive(t, s, "Hermes", state)
	var answered []string
	for range 2 {
		ev := r.next(t)
		if !seen[ev.ID] { // the gateway's Seen
			seen[ev.ID] = true
			answered = append(answered, ev.ID)
		}
	}
	if len(answered) != 1 || answered[0] != "<c@example.com>" {
		t.Errorf("answered after the renumbering: %v, want only <c@example.com>", answered)
	}
}

// Send failures are told apart, so the outbox retries what may pass
// later and gives up on what cannot: 4xx replies and an unreachable
// server are temporary, 5xx replies permanent.
func TestSendFailures(t *testing.T) {
	for _, tt := range []struct {
		name string
		code int
		want gateway.SendFailure
	}{
		{"greylisted", 451, gateway.Temporary},
		{"mailbox full", 452, gateway.Temporary},
		{"no such user", 550, gateway.Permanent},
		{"refused", 554, gateway.Permanent},
	} {
		addr := refusingServer(t, tt.code)
		a := offline(t, "hermes@example.com")
		a.o.SMTP = Server{Addr: addr, TLS: NoTLS}
		_, err := a.Send(context.Background(), gateway.Chat{ID: "ana@example.com", Type: gateway.DM, Thread: "<a@x>"}, gateway.Outgoing{Text: "hi"})
		var se *gateway.SendError
		if !errors.As(err, &se) || se.Kind != tt.want {
			t.Errorf("%s (%d): %v, want a %s SendError", tt.name, tt.code, err, tt.want)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	a := offline(t, "hermes@example.com")
	a.o.SMTP = Server{Addr: closed, TLS: NoTLS}
	_, err = a.Send(context.Background(), gateway.Chat{ID: "ana@example.com", Type: gateway.DM}, gateway.Outgoing{Text: "hi"})
	var se *gateway.SendError
	if !errors.As(err, &se) || se.Kind != gateway.Temporary {
		t.Errorf("unreachable server: %v, want a temporary SendError", err)
	}
	_, err = a.Send(context.Background(), gateway.Chat{ID: "not an address"}, gateway.Outgoing{Text: "hi"})
	if !errors.As(err, &se) || se.Kind != gateway.Permanent {
		t.Errorf("a chat that is no address: %v, want a permanent SendError", err)
	}
}

// refusingServer is a real SMTP server (go-smtp) that refuses every
// recipient with code.
func refusingServer(t *testing.T, code int) string {
	t.Helper()
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return refusing{code}, nil }))
	srv.Domain = "localhost"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

type refusing struct{ code int }

func (refusing) Mail(string, *smtp.MailOptions) error { return nil }
func (r refusing) Rcpt(string, *smtp.RcptOptions) error {
	return &smtp.SMTPError{Code: r.code, Message: "refused by the test"}
}
func (refusing) Data(io.Reader) error { return nil }
func (refusing) Reset()               {}
func (refusing) Logout() error        { return nil }

// A server without IDLE is polled every PollEvery: a new mail waits for
// the next poll, and comes in when it is due.
func TestPollsWithoutIdle(t *testing.T) {
	s := mailtest.StartWith(t, mailtest.Options{NoIdle: true})
	clk := clock.NewFake(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC))
	var mu sync.Mutex
	var logs strings.Builder
	a, err := New(Options{IMAP: Server{Addr: s.IMAPAddr, TLS: NoTLS}, SMTP: Server{Addr: s.SMTPAddr, TLS: NoTLS},
		Username: s.User, Password: s.Password, Address: s.Address, PollEvery: time.Minute,
		Clock: clk, Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan gateway.Event, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Receive(ctx, func(_ context.Context, ev gateway.Event) error { events <- ev; return nil })
	}()
	defer func() { cancel(); <-done }()

	clk.BlockUntil(1) // connected, read the mailbox, waiting for the poll
	mu.Lock()
	if !strings.Contains(logs.String(), "idle=false") {
		t.Errorf("the adapter did not see a server without IDLE:\n%s", logs.String())
	}
	mu.Unlock()
	s.Deliver(t, "INBOX", letter("<p1@example.com>", "Polled", "", "hi"))
	select {
	case ev := <-events:
		t.Fatalf("mail %s came in before the poll, on a server without IDLE", ev.ID)
	default:
	}
	clk.Advance(time.Minute)
	select {
	case ev := <-events:
		if ev.ID != "<p1@example.com>" {
			t.Errorf("event %s", ev.ID)
		}
	case <-time.After(eventTimeout):
		t.Fatalf("the poll brought no mail within %s", eventTimeout)
	}
}

// With the receiving server named, a mail is taken only when that
// server's Authentication-Results vouch for its From domain: a forged
// From, even of an allowed address, is not.
func TestReceiveChecksSender(t *testing.T) {
	s := mailtest.Start(t)
	a, err := New(Options{IMAP: Server{Addr: s.IMAPAddr, TLS: NoTLS}, SMTP: Server{Addr: s.SMTPAddr, TLS: NoTLS},
		Username: s.User, Password: s.Password, Address: s.Address, PollEvery: time.Hour,
		AuthservID: "mx.example.com", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan gateway.Event, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.Receive(ctx, func(_ context.Context, ev gateway.Event) error { events <- ev; return nil })
	}()
	defer func() { cancel(); <-done }()
	s.Deliver(t, "INBOX", "Authentication-Results: mx.example.com; dkim=fail header.d=example.com; dmarc=fail header.from=example.com\n"+
		"Authentication-Results: mx.example.com; dkim=pass header.d=example.com\n"+
		letter("<forged@example.com>", "Run this", "", "rm -rf ~"))
	s.Deliver(t, "INBOX", letter("<unsigned@example.com>", "Run this", "", "rm -rf ~"))
	s.Deliver(t, "INBOX", "Authentication-Results: mx.example.com; dkim=pass header.i=@example.com; dmarc=pass header.from=example.com\n"+
		letter("<signed@example.com>", "Hello", "", "hi"))
	select {
	case ev := <-events:
		if ev.ID != "<signed@example.com>" {
			t.Errorf("first mail taken: %s, want only the verified one", ev.ID)
		}
	case <-time.After(eventTimeout):
		t.Fatal("the verified mail was not delivered")
	}
}
