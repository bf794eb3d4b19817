package email

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/hermes-go/hermes/internal/gateway"
)

// maxReferences is the most ids a reply's References keeps: the thread's
// root and the latest ones, as mail programs trim long threads.
const maxReferences = 20

// Send mails m to the chat's address as a reply in the chat's thread:
// In-Reply-To the thread's last message, References that message's
// References and its id, "Re:" and the thread's subject. The reply then
// becomes the thread's last message.
func (a *Adapter) Send(ctx context.Context, chat gateway.Chat, m gateway.Outgoing) (gateway.MessageRef, error) {
	to, err := mail.ParseAddress(chat.ID)
	if err != nil {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("email: chat %q is not an address", chat.ID), Err: err}
	}
	a.threadMu.Lock()
	defer a.threadMu.Unlock()
	th, ok, err := a.state.Thread(ctx, strings.ToLower(to.Address), chat.Thread)
	if err != nil {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.Temporary, Message: "email: reading the thread", Err: err}
	}
	if !ok {
		// A thread hermes has not seen (a notice before any mail was
		// recorded): answer the message named, or the thread's root.
		th.LastID = m.ReplyTo
		if th.LastID == "" && strings.HasPrefix(chat.Thread, "<") {
			th.LastID = chat.Thread
		}
	}
	files, err := readFiles(m.Files)
	if err != nil {
		return gateway.MessageRef{}, &gateway.SendError{Kind: gateway.Permanent, Message: err.Error(), Err: err}
	}
	id := a.messageID()
	refs := references(th.References, th.LastID)
	raw := a.compose(to.Address, id, th, refs, m.Text, files...)
	if err := a.deliver(ctx, to.Address, raw); err != nil {
		return gateway.MessageRef{}, classify(err)
	}
	th.LastID, th.References = id, refs
	if err := a.state.SetThread(ctx, strings.ToLower(to.Address), chat.Thread, th); err != nil {
		a.log.Warn("email: the thread's last message was not recorded; the next reply answers the one before", "err", err)
	}
	return gateway.MessageRef{Chat: chat, ID: id}, nil
}

// references is a reply's References: the parent's References and the
// parent's id, trimmed to the root and the latest ids.
func references(parentRefs, parentID string) string {
	ids := strings.Fields(parentRefs)
	if parentID != "" {
		ids = append(ids, parentID)
	}
	if len(ids) > maxReferences {
		ids = append(ids[:1], ids[len(ids)-maxReferences+1:]...)
	}
	return strings.Join(ids, " ")
}

// compose builds the reply: headers encoded per RFC 2047 where they are
// not ASCII, marked Auto-Submitted so other robots do not answer it, and
// the text as UTF-8 quoted-printable, followed by files as attachments.
func (a *Adapter) compose(to, id string, th Thread, refs, text string, files ...attachment) []byte {
	subject := "Re: " + th.Subject
	if th.Subject == "" {
		subject = "Re: your mail to hermes"
	}
	var b bytes.Buffer
	h := func(k, v string) {
		if v != "" {
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	h("From", a.o.Address)
	h("To", to)
	h("Subject", mime.QEncoding.Encode("utf-8", oneLine(subject)))
	h("Date", a.clock.Now().Format(time.RFC1123Z))
	h("Message-ID", id)
	h("In-Reply-To", th.LastID)
	h("References", refs)
	h("Auto-Submitted", "auto-replied")
	h("MIME-Version", "1.0")
	if len(files) > 0 {
		writeMixed(&b, text, files)
		return b.Bytes()
	}
	writeText(&b, text)
	return b.Bytes()
}

// writeText writes the last headers of a plain-text mail, then its body.
func writeText(b *bytes.Buffer, text string) {
	b.WriteString("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	b.Write(qpText(text))
}

// qpText is text with CRLF line ends as UTF-8 quoted-printable.
func qpText(text string) []byte {
	var b bytes.Buffer
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")))
	_ = qp.Close()
	return b.Bytes()
}

// messageID is a new Message-ID in hermes's address's domain.
func (a *Adapter) messageID() string {
	var buf [16]byte
	_, _ = rand.Read(buf[:])
	domain := a.from[strings.LastIndexByte(a.from, '@')+1:]
	return "<" + hex.EncodeToString(buf[:]) + "@" + domain + ">"
}

// sendTimeout bounds one SMTP conversation when ctx has no deadline.
const sendTimeout = 2 * time.Minute

// deliver holds one SMTP conversation that hands raw to the server for to.
func (a *Adapter) deliver(ctx context.Context, to string, raw []byte) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	d := net.Dialer{Timeout: 30 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", a.o.SMTP.Addr)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	var c *smtp.Client
	switch a.o.SMTP.TLS {
	case ImplicitTLS:
		c = smtp.NewClient(tls.Client(conn, a.tlsConfig(a.o.SMTP.Addr)))
	case StartTLS:
		if c, err = smtp.NewClientStartTLS(conn, a.tlsConfig(a.o.SMTP.Addr)); err != nil {
			return fmt.Errorf("smtp starttls: %w", err)
		}
	default:
		c = smtp.NewClient(conn)
	}
	defer c.Close()
	if a.o.Password != "" {
		if err := c.Auth(sasl.NewPlainClient("", a.o.Username, a.o.Password)); err != nil {
			return fmt.Errorf("smtp login as %s: %w", a.o.Username, err)
		}
	}
	if err := c.SendMail(a.from, []string{to}, bytes.NewReader(raw)); err != nil {
		return err
	}
	return c.Quit()
}

// classify turns an SMTP failure into the gateway's kinds: a 4xx reply
// is temporary (greylisting, a full queue), a 5xx permanent (no such
// recipient, refused login), and a network failure temporary.
func classify(err error) *gateway.SendError {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		kind := gateway.Permanent
		if se.Code >= 400 && se.Code < 500 {
			kind = gateway.Temporary
		}
		return &gateway.SendError{Kind: kind, Message: fmt.Sprintf("email: the SMTP server answered %d %s", se.Code, se.Message), Err: err}
	}
	return &gateway.SendError{Kind: gateway.Temporary, Message: "email: " + err.Error(), Err: err}
}
