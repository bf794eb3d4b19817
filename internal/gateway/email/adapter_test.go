package email

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/email/mailtest"
)

// eventTimeout bounds how long a test waits for the adapter to take a
// mail.
const eventTimeout = 30 * time.Second

// receiver is an adapter receiving in the background, and what it
// delivered.
type receiver struct {
	a      *Adapter
	events chan gateway.Event
	// refuse, when set, makes deliver refuse an event (it is offered
	// again).
	mu     sync.Mutex
	refuse func(gateway.Event) error
	stop   func()
}

// receive starts an adapter on s reading mailbox with state, polling only
// every hour so that only IDLE brings mail in quickly.
func receive(t *testing.T, s *mailtest.Server, mailbox string, state State) *receiver {
	t.Helper()
	return receiveWith(t, s, mailbox, state, 0)
}

// receiveWith is receive reading mail of at most maxMail bytes.
func receiveWith(t *testing.T, s *mailtest.Server, mailbox string, state State, maxMail int64) *receiver {
	t.Helper()
	a, err := New(Options{MaxMailBytes: maxMail,
		IMAP: Server{Addr: s.IMAPAddr, TLS: NoTLS}, SMTP: Server{Addr: s.SMTPAddr, TLS: NoTLS},
		Username: s.User, Password: s.Password, Address: s.Address, Mailbox: mailbox,
		PollEvery: time.Hour, State: state, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{a: a, events: make(chan gateway.Event, 16)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- a.Receive(ctx, func(_ context.Context, ev gateway.Event) error {
			r.mu.Lock()
			refuse := r.refuse
			r.mu.Unlock()
			if refuse != nil {
				if err := refuse(ev); err != nil {
					return err
				}
			}
			r.events <- ev
			return nil
		})
	}()
	r.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Receive: %v", err)
		}
	}
	t.Cleanup(func() {
		if ctx.Err() == nil {
			r.stop()
		}
	})
	return r
}

// next is the next event the adapter delivered, settle mail left out.
func (r *receiver) next(t *testing.T) gateway.Event {
	t.Helper()
	deadline := time.After(eventTimeout)
	for {
		select {
		case ev := <-r.events:
			if !strings.HasPrefix(ev.ID, "<settle-") {
				return ev
			}
		case <-deadline:
			t.Fatalf("no mail was delivered within %s", eventTimeout)
		}
	}
}

// settle returns once the adapter is done with the mail delivered so far
// (marked read, its place recorded): it takes mail in order, so when a
// mail delivered after them arrives, they are done.
func (r *receiver) settle(t *testing.T, s *mailtest.Server, mailbox string) {
	t.Helper()
	id := fmt.Sprintf("<settle-%d@example.com>", time.Now().UnixNano())
	s.Deliver(t, mailbox, letter(id, "settle", "", "."))
	deadline := time.After(eventTimeout)
	for {
		select {
		case ev := <-r.events:
			if ev.ID == id {
				return
			}
			t.Errorf("unexpected event %s: %q", ev.ID, ev.Text)
		case <-deadline:
			t.Fatalf("the settle mail was not delivered within %s", eventTimeout)
		}
	}
}

// none checks that nothing more was delivered but settle mail.
func (r *receiver) none(t *testing.T) {
	t.Helper()
	for {
		select {
		case ev := <-r.events:
			if !strings.HasPrefix(ev.ID, "<settle-") {
				t.Errorf("unexpected event %s: %q", ev.ID, ev.Text)
			}
		default:
			return
		}
	}
}

// letter is a mail from ana to hermes.
func letter(id, subject, extra, body string) string {
	return fmt.Sprintf("From: Ana <Ana@Example.com>\nTo: hermes@example.com\nSubject: %s\nMessage-ID: %s\nDate: Thu, 03 Dec 2026 10:00:00 +0000\n%s\n%s\n", subject, id, extra, body)
}

// A mail in becomes an event; a second mail comes in while the adapter
// idles (the poll is an hour away), and each is marked read once
// delivered. A mail deliver refused stays unread and is offered again.
func TestReceive(t *testing.T) {
	s := mailtest.Start(t)
	r := receive(t, s, "INBOX", nil)
	uidA := s.Deliver(t, "INBOX", letter("<a@example.com>", "Plans", "", "Shall we ship on Friday?"))
	ev := r.next(t)
	want := gateway.Event{ID: "<a@example.com>", Kind: gateway.KindMessage, Addressed: true, MessageID: "<a@example.com>",
		Chat: gateway.Chat{ID: "ana@example.com", Type: gateway.DM, Thread: "<a@example.com>"},
		User: gateway.User{ID: "ana@example.com", Name: "Ana"}, Text: "Subject: Plans\n\nShall we ship on Friday?"}
	ev.Received = time.Time{}
	if fmt.Sprint(ev) != fmt.Sprint(want) {
		t.Errorf("event\n%+v\nwant\n%+v", ev, want)
	}

	// The adapter now idles: only the server's notice can bring this one
	// in before the hour-long poll.
	s.Deliver(t, "INBOX", letter("<b@example.com>", "Re: Plans", "In-Reply-To: <a@example.com>\nReferences: <a@example.com>\n",
		"/approve\n\nOn Thu, Dec 3, 2026 at 10:00 AM hermes <hermes@example.com> wrote:\n> Answer /approve or /deny.\n"))
	ev = r.next(t)
	if ev.ID != "<b@example.com>" || ev.Chat.Thread != "<a@example.com>" || ev.Text != "/approve" {
		t.Errorf("reply in the thread: id %s thread %s text %q; want /approve in thread <a@example.com>", ev.ID, ev.Chat.Thread, ev.Text)
	}
	if !s.Seen(t, "INBOX", uidA) {
		t.Error("a delivered mail is still unread")
	}

	attempts := 0
	r.mu.Lock()
	r.refuse = func(ev gateway.Event) error {
		attempts++
		if attempts == 1 {
			return errors.New("store busy")
		}
		return nil
	}
	r.mu.Unlock()
	uidC := s.Deliver(t, "INBOX", letter("<c@example.com>", "Again", "", "third"))
	if ev := r.next(t); ev.ID != "<c@example.com>" || attempts != 2 {
		t.Errorf("after a refusal: %s after %d attempts; want <c@example.com> offered twice", ev.ID, attempts)
	}
	r.settle(t, s, "INBOX")
	r.stop()
	if !s.Seen(t, "INBOX", uidC) {
		t.Error("the mail taken on its second offer is still unread")
	}
	r.none(t)
}

// A mail bigger than the adapter reads is left unread for a person, and
// the next one comes through.
func TestReceiveLeavesHugeMail(t *testing.T) {
	s := mailtest.Start(t)
	r := receiveWith(t, s, "INBOX", nil, 2000)
	huge := s.Deliver(t, "INBOX", letter("<huge@example.com>", "Logs", "", strings.Repeat("log line\n", 300)))
	s.Deliver(t, "INBOX", letter("<small@example.com>", "Hi", "", "Small."))
	if ev := r.next(t); ev.ID != "<small@example.com>" {
		t.Errorf("first event %s, want the small mail", ev.ID)
	}
	r.stop()
	if s.Seen(t, "INBOX", huge) {
		t.Error("the huge mail was marked read")
	}
	r.none(t)
}

// No robot is answered: automatic mail, lists and hermes's own mail are
// left alone (unread, for a person to see), and the next mail from a
// person still comes through.
func TestReceiveSkipsLoops(t *testing.T) {
	s := mailtest.Start(t)
	r := receive(t, s, "INBOX", nil)
	skipped := []string{
		"From: vacation@example.com\nAuto-Submitted: auto-replied\nMessage-ID: <v@x>\nSubject: Out of office\n\nAway.\n",
		"From: dev@lists.example.com\nList-Id: <dev.lists.example.com>\nMessage-ID: <l@x>\nSubject: digest\n\nNews.\n",
		"From: news@example.com\nPrecedence: bulk\nMessage-ID: <n@x>\nSubject: offer\n\nBuy.\n",
		"From: hermes@example.com\nMessage-ID: <h@x>\nSubject: Re: x\n\nMy own reply.\n",
	}
	var uids []imap.UID
	for _, raw := range skipped {
		uids = append(uids, s.Deliver(t, "INBOX", raw))
	}
	s.Deliver(t, "INBOX", letter("<p@example.com>", "Hi", "", "A person."))
	if ev := r.next(t); ev.ID != "<p@example.com>" {
		t.Errorf("first event %s, want the person's mail", ev.ID)
	}
	r.none(t)
	for i, uid := range uids {
		if s.Seen(t, "INBOX", uid) {
			t.Errorf("skipped mail %d was marked read", i)
		}
	}
}

// A reply is threaded under the mail it answers, and the next reply in
// the thread under the mail that answered it: In-Reply-To the last
// message, References the parent's References and its id, "Re:" once,
// Auto-Submitted, UTF-8 text that survives the trip.
func TestSendThreads(t *testing.T) {
	s := mailtest.Start(t)
	r := receive(t, s, "INBOX", nil)
	s.Deliver(t, "INBOX", letter("<a@example.com>", "Re: =?utf-8?q?Pl=C3=A4ne?=", "References: <root@example.com>\nIn-Reply-To: <root@example.com>\n", "Go?"))
	ev := r.next(t)
	if ev.Chat.Thread != "<root@example.com>" {
		t.Fatalf("thread %q", ev.Chat.Thread)
	}
	ref, err := r.a.Send(context.Background(), ev.Chat, gateway.Outgoing{Text: "Grüße — 好的.\n.\nA line with a dot."})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Next(t)
	subject, _ := new(mime.WordDecoder).DecodeHeader(got.Header("Subject"))
	for k, want := range map[string]string{
		"From": "hermes@example.com", "To": "ana@example.com", "Message-Id": ref.ID,
		"In-Reply-To": "<a@example.com>", "References": "<root@example.com> <a@example.com>",
		"Auto-Submitted": "auto-replied",
	} {
		if got.Header(k) != want {
			t.Errorf("%s = %q, want %q", k, got.Header(k), want)
		}
	}
	if subject != "Re: Pläne" {
		t.Errorf("Subject = %q, want Re: once", subject)
	}
	if got.Header("Date") == "" || !strings.HasPrefix(ref.ID, "<") || !strings.HasSuffix(ref.ID, "@example.com>") {
		t.Errorf("Date %q, Message-ID %q", got.Header("Date"), ref.ID)
	}
	body, _ := io.ReadAll(qpBody(got))
	if strings.TrimRight(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") != "Grüße — 好的.\n.\nA line with a dot." {
		t.Errorf("body = %q", body)
	}

	// Ana answers hermes's reply; hermes answers that.
	s.Deliver(t, "INBOX", letter("<b@example.com>", "Re: Pläne", "In-Reply-To: "+ref.ID+"\nReferences: <root@example.com> <a@example.com> "+ref.ID+"\n", "Yes."))
	ev = r.next(t)
	if ev.Chat.Thread != "<root@example.com>" || ev.Text != "Yes." {
		t.Fatalf("second mail: thread %q text %q", ev.Chat.Thread, ev.Text)
	}
	ref2, err := r.a.Send(context.Background(), ev.Chat, gateway.Outgoing{Text: "Done."})
	if err != nil {
		t.Fatal(err)
	}
	got = s.Next(t)
	if got.Header("In-Reply-To") != "<b@example.com>" || got.Header("References") != "<root@example.com> <a@example.com> "+ref.ID+" <b@example.com>" || ref2.ID == ref.ID {
		t.Errorf("second reply: In-Reply-To %q References %q id %q", got.Header("In-Reply-To"), got.Header("References"), ref2.ID)
	}
}

// qpBody is the body of a quoted-printable mail, decoded.
func qpBody(m mailtest.Sent) io.Reader { return quotedprintable.NewReader(m.Msg.Body) }

// Files a reply names go with it as attachments, under their own names
// (any script), beside the text; a file that cannot be read, or more
// than mail carries, is refused for good rather than sent without it.
func TestSendAttachesFiles(t *testing.T) {
	s := mailtest.Start(t)
	a := offline(t, s.Address)
	a.o.SMTP = Server{Addr: s.SMTPAddr, TLS: NoTLS}
	dir := t.TempDir()
	report := filepath.Join(dir, "报告 \"v1\".json")
	if err := os.WriteFile(report, []byte("{\"a\": 1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	chat := gateway.Chat{ID: "ana@example.com", Type: gateway.DM, Thread: "<a@x>"}
	if _, err := a.Send(context.Background(), chat, gateway.Outgoing{Text: "The report.", Files: []string{report}}); err != nil {
		t.Fatal(err)
	}
	got, err := parse(s.Next(t).Raw)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(got.text) != "The report." || len(got.files) != 1 {
		t.Fatalf("text %q, %d files", got.text, len(got.files))
	}
	if f := got.files[0]; f.name != "报告 \"v1\".json" || string(f.data) != "{\"a\": 1}\n" || f.mime != "application/json" {
		t.Errorf("attachment %q (%s): %q", f.name, f.mime, f.data)
	}

	var se *gateway.SendError
	_, err = a.Send(context.Background(), chat, gateway.Outgoing{Text: "x", Files: []string{filepath.Join(dir, "missing.pdf")}})
	if !errors.As(err, &se) || se.Kind != gateway.Permanent || !strings.Contains(err.Error(), "missing.pdf") {
		t.Errorf("a missing file: %v, want a permanent error naming it", err)
	}
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, make([]byte, maxAttachBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = a.Send(context.Background(), chat, gateway.Outgoing{Text: "x", Files: []string{big}})
	if !errors.As(err, &se) || se.Kind != gateway.Permanent {
		t.Errorf("a file over the limit: %v, want a permanent error", err)
	}
	if n := s.Count(t); n != 1 {
		t.Errorf("%d mails sent, want only the one with its file", n)
	}
}
