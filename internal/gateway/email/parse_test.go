package email

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/mail"
	"strings"
	"testing"
)

// offline is an adapter for address whose servers are never reached.
func offline(t *testing.T, address string) *Adapter {
	t.Helper()
	a, err := New(Options{IMAP: Server{Addr: "127.0.0.1:1", TLS: NoTLS}, SMTP: Server{Addr: "127.0.0.1:1", TLS: NoTLS},
		Username: "hermes", Address: address, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// mailOf is raw with LF line ends turned into CRLF.
func mailOf(raw string) []byte { return []byte(strings.ReplaceAll(raw, "\n", "\r\n")) }

// A mail in MIME parts, with headers and bodies in charsets other than
// UTF-8, is read: the text/plain part preferred, attachments kept, the
// thread's root taken from References.
func TestParse(t *testing.T) {
	raw := mailOf(`From: =?GB2312?B?1cXI/Q==?= <Zhang.San@Example.COM>
To: hermes@example.com
Subject: =?GB2312?B?u+HS6bzGu64=?=
Message-ID: <m3@example.com>
In-Reply-To: <m2@example.com>
References: <m1@example.com> <m2@example.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="mixed"

--mixed
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Caf=E9 at noon?

--alt
Content-Type: text/html; charset=utf-8

<p>HTML version</p>
--alt--

--mixed
Content-Type: image/png
Content-Disposition: attachment; filename="plan.png"
Content-Transfer-Encoding: base64

iVBORw0KGgo=
--mixed--
`)
	m, err := parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.id != "<m3@example.com>" || m.from != "zhang.san@example.com" || m.name != "张三" || m.subject != "会议计划" {
		t.Errorf("headers: id %q from %q name %q subject %q", m.id, m.from, m.name, m.subject)
	}
	if m.root() != "<m1@example.com>" || m.inReplyTo != "<m2@example.com>" {
		t.Errorf("thread: root %q in-reply-to %q", m.root(), m.inReplyTo)
	}
	if strings.TrimSpace(m.text) != "Café at noon?" {
		t.Errorf("text = %q, want the text/plain part decoded from ISO-8859-1", m.text)
	}
	if len(m.files) != 1 || m.files[0].name != "plan.png" || m.files[0].mime != "image/png" || len(m.files[0].data) != 8 {
		t.Errorf("files = %+v", m.files)
	}
}

// The thread's root: the first id of References, else In-Reply-To, else
// the mail's own id; a mail without a Message-ID gets a stable one.
func TestParseRoot(t *testing.T) {
	m, _ := parse(mailOf("From: a@x\nMessage-ID: <b@x>\nIn-Reply-To: <a@x>\n\nhi\n"))
	if m.root() != "<a@x>" {
		t.Errorf("root = %q, want In-Reply-To", m.root())
	}
	m, _ = parse(mailOf("From: a@x\nMessage-ID: <b@x>\n\nhi\n"))
	if m.root() != "<b@x>" {
		t.Errorf("root = %q, want the own id", m.root())
	}
	raw := mailOf("From: a@x\nSubject: no id\n\nhi\n")
	m1, _ := parse(raw)
	m2, _ := parse(raw)
	if m1.id == "" || m1.id != m2.id || !validID(strings.Trim(m1.id, "<>")) {
		t.Errorf("ids of a mail without Message-ID: %q, %q; want one stable, well-formed id", m1.id, m2.id)
	}
}

// Mail that a robot or a list sent is never answered, nor mail from
// hermes's own address: each would start a mail loop.
func TestLoopGuards(t *testing.T) {
	a := offline(t, "Hermes@Example.com")
	base := "To: hermes@example.com\nMessage-ID: <x@y>\nSubject: hi\n"
	for _, tt := range []struct {
		name, headers string
		answered      bool
	}{
		{"person", "From: ana@example.com\n", true},
		{"auto-submitted no", "From: ana@example.com\nAuto-Submitted: no\n", true},
		{"auto-replied", "From: ana@example.com\nAuto-Submitted: auto-replied\n", false},
		{"auto-generated", "From: ana@example.com\nAuto-Submitted: Auto-Generated\n", false},
		{"bulk", "From: ana@example.com\nPrecedence: bulk\n", false},
		{"list precedence", "From: ana@example.com\nPrecedence: list\n", false},
		{"junk", "From: ana@example.com\nPrecedence: junk\n", false},
		{"list-id", "From: ana@example.com\nList-Id: <dev.lists.example.com>\n", false},
		{"list-unsubscribe", "From: ana@example.com\nList-Unsubscribe: <mailto:u@example.com>\n", false},
		{"precedence auto_reply", "From: ana@example.com\nPrecedence: auto_reply\n", false},
		{"x-autoreply", "From: ana@example.com\nX-Autoreply: yes\n", false},
		{"asks for no auto-replies", "From: ana@example.com\nX-Auto-Response-Suppress: All\n", false},
		{"null return-path", "Return-Path: <>\nFrom: ana@example.com\n", false},
		{"delivery report", "From: ana@example.com\nContent-Type: multipart/report; report-type=delivery-status; boundary=x\n", false},
		{"mailer-daemon", "From: Mail Delivery System <MAILER-DAEMON@example.com>\n", false},
		{"noreply", "From: GitHub <noreply@github.com>\n", false},
		{"own address", "From: HERMES@example.com\n", false},
		{"own address with name", "From: hermes <hermes@EXAMPLE.com>\n", false},
		{"no sender", "", false},
	} {
		_, ok, err := a.event(context.Background(), mailOf(tt.headers+base+"\nhello\n"))
		if err != nil || ok != tt.answered {
			t.Errorf("%s: answered = %v (%v), want %v", tt.name, ok, err, tt.answered)
		}
	}
}

// A reply's headers cannot be written by the mail it answers: a subject
// that decodes to several lines stays one, and ids that are not plain
// ids are dropped rather than copied into In-Reply-To or References.
func TestReplyHeadersCannotBeInjected(t *testing.T) {
	a := offline(t, "hermes@example.com")
	raw := mailOf("From: ana@example.com\nMessage-ID: <ok@x>\nReferences: <a b@x> <c@x>\n" +
		"Subject: =?utf-8?q?hi=0D=0ABcc:_victim@example.com=0D=0A=0D=0Abody?=\n\nhello\n")
	ev, ok, err := a.event(context.Background(), raw)
	if err != nil || !ok {
		t.Fatalf("event: %v, %v", ok, err)
	}
	th, _, _ := a.state.Thread(context.Background(), ev.Chat.ID, ev.Chat.Thread)
	out := a.compose("ana@example.com", "<r@example.com>", th, references(th.References, th.LastID), "answer")
	msg, err := mail.ReadMessage(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if msg.Header.Get("Bcc") != "" || strings.Contains(string(out), "\r\nBcc:") {
		t.Errorf("the subject added a header:\n%s", out)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || strings.ContainsAny(subject, "\r\n") || !strings.HasPrefix(subject, "Re: hi") {
		t.Errorf("Subject decodes to %q (%v), want one line", subject, err)
	}
	if got := msg.Header.Get("References"); got != "<c@x> <ok@x>" {
		t.Errorf("References = %q, want the well-formed ids only", got)
	}
	body, _ := io.ReadAll(msg.Body)
	if strings.TrimSpace(string(body)) != "answer" {
		t.Errorf("body = %q", body)
	}
}

// The first mail of a thread tells its subject to the model, unless it is
// a command (a body of just /new starts the thread's session afresh);
// attachments become media the gateway can fetch.
func TestEventText(t *testing.T) {
	a := offline(t, "hermes@example.com")
	ev, ok, _ := a.event(context.Background(), mailOf("From: ana@example.com\nMessage-ID: <n@x>\nSubject: Plans\n\n/new\n"))
	if !ok || ev.Text != "/new" {
		t.Errorf("a /new mail: %q", ev.Text)
	}
	raw := mailOf(`From: ana@example.com
Message-ID: <p@x>
Subject: Photo
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: text/plain

What is this?
--b
Content-Type: image/jpeg
Content-Disposition: attachment; filename="cat.jpg"
Content-Transfer-Encoding: base64

/9j/4AAQ
--b--
`)
	ev, ok, _ = a.event(context.Background(), raw)
	if !ok || ev.Text != "Subject: Photo\n\nWhat is this?" || len(ev.Media) != 1 {
		t.Fatalf("event %q with %d media", ev.Text, len(ev.Media))
	}
	m := ev.Media[0]
	rc, err := m.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	rc.Close()
	if m.Kind != "photo" || m.Name != "cat.jpg" || m.MIME != "image/jpeg" || m.Size != 6 || len(data) != 6 {
		t.Errorf("media %+v with %d bytes", m, len(data))
	}
}

// A mail offered again after hermes answered it does not move its thread
// back: the next reply still answers hermes's last message.
func TestOldMailKeepsThread(t *testing.T) {
	a := offline(t, "hermes@example.com")
	ctx := context.Background()
	a1 := mailOf("From: ana@example.com\nMessage-ID: <a1@x>\nSubject: Plans\n\nFirst.\n")
	if _, ok, err := a.event(ctx, a1); !ok || err != nil {
		t.Fatal(ok, err)
	}
	replied := Thread{Subject: "Plans", LastID: "<r1@example.com>", References: "<a1@x>"}
	if err := a.state.SetThread(ctx, "ana@example.com", "<a1@x>", replied); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.event(ctx, a1); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if th, _, _ := a.state.Thread(ctx, "ana@example.com", "<a1@x>"); th != replied {
		t.Errorf("thread after the old mail again = %+v, want %+v", th, replied)
	}
	a2 := mailOf("From: ana@example.com\nMessage-ID: <a2@x>\nIn-Reply-To: <r1@example.com>\nReferences: <a1@x> <r1@example.com>\nSubject: Re: Plans\n\nSecond.\n")
	if _, ok, err := a.event(ctx, a2); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if th, _, _ := a.state.Thread(ctx, "ana@example.com", "<a1@x>"); th.LastID != "<a2@x>" || th.References != "<a1@x> <r1@example.com>" {
		t.Errorf("thread after a new mail = %+v", th)
	}
}

// failingState is a State whose store is down.
type failingState struct{ *memState }

func (failingState) Thread(context.Context, string, string) (Thread, bool, error) {
	return Thread{}, false, errors.New("database is locked")
}

// A mail is not lost when the state cannot be written: the error goes up,
// so the mail is not taken and is offered again.
func TestStateFailureKeepsMail(t *testing.T) {
	a := offline(t, "hermes@example.com")
	a.state = failingState{newMemState()}
	_, ok, err := a.event(context.Background(), mailOf("From: ana@example.com\nMessage-ID: <s@x>\nSubject: x\n\nhi\n"))
	if err == nil || ok {
		t.Errorf("event with the state down: ok %v, err %v; want an error", ok, err)
	}
}
