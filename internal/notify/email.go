package notify

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
	"net/smtp"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// emailTarget sends the message as a plain-text mail through the
// configured SMTP server.
type emailTarget struct {
	to    []string
	smtp  SMTP
	clock clock.Clock
}

func newEmail(rest string, cfg Config) (*emailTarget, error) {
	if cfg.SMTP.Host == "" || cfg.SMTP.From == "" {
		return nil, fmt.Errorf("no SMTP server is configured (host and from are needed)")
	}
	if _, err := mail.ParseAddress(cfg.SMTP.From); err != nil {
		return nil, fmt.Errorf("the configured from address %q is not an address", cfg.SMTP.From)
	}
	list, err := mail.ParseAddressList(rest)
	if err != nil {
		return nil, fmt.Errorf("%q is not an address list", rest)
	}
	t := &emailTarget{smtp: cfg.SMTP, clock: cfg.clock()}
	for _, a := range list {
		t.to = append(t.to, a.Address)
	}
	return t, nil
}

func (t *emailTarget) String() string    { return "email:" + strings.Join(t.to, ",") }
func (t *emailTarget) secrets() []string { return []string{t.smtp.Password} }

func (t *emailTarget) Split(msg Message) []Part {
	text := msg.Text
	if msg.Link != "" {
		text += "\n\n" + msg.Link
	}
	return single(msg, text)
}

// Send holds one SMTP conversation. 4xx replies and network failures are
// transient; 5xx replies (bad recipient, refused auth) are permanent.
func (t *emailTarget) Send(ctx context.Context, p Part) error {
	err := t.send(ctx, p)
	if err == nil {
		return nil
	}
	var tp *textproto.Error
	if errors.As(err, &tp) {
		return &SendError{Msg: "email: server refused", Transient: tp.Code < 500, Err: err}
	}
	if ctx.Err() != nil {
		return &SendError{Msg: "email: cancelled", Err: ctx.Err()}
	}
	return wrapTransient(err, "email: %s", t.addr())
}

func (t *emailTarget) addr() string {
	port := t.smtp.Port
	if port == 0 {
		port = 587
	}
	return net.JoinHostPort(t.smtp.Host, strconv.Itoa(port))
}

func (t *emailTarget) send(ctx context.Context, p Part) error {
	timeout := t.smtp.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := net.Dialer{}
	conn, err := d.DialContext(ctx, "tcp", t.addr())
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	tlsConf := &tls.Config{ServerName: t.smtp.Host}
	if t.smtp.Port == 465 {
		conn = tls.Client(conn, tlsConf)
	}
	c, err := smtp.NewClient(conn, t.smtp.Host)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok && t.smtp.Port != 465 {
		if err := c.StartTLS(tlsConf); err != nil {
			return fmt.Errorf("STARTTLS: %w", err)
		}
	}
	if t.smtp.Username != "" {
		// PlainAuth refuses to send the password in the clear except to
		// localhost.
		if err := c.Auth(smtp.PlainAuth("", t.smtp.Username, t.smtp.Password, t.smtp.Host)); err != nil {
			return fmt.Errorf("auth as %s: %w", t.smtp.Username, err)
		}
	}
	from, _ := mail.ParseAddress(t.smtp.From)
	if err := c.Mail(from.Address); err != nil {
		return err
	}
	for _, to := range t.to {
		if err := c.Rcpt(to); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(t.compose(p)); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// compose builds the mail: UTF-8 headers encoded per RFC 2047 and a
// quoted-printable body, so Chinese text passes any server.
func (t *emailTarget) compose(p Part) []byte {
	subject := p.Msg.Title
	if subject == "" {
		subject = "hermes: " + orDefault(p.Msg.Job, "result")
	}
	var b bytes.Buffer
	h := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	h("From", t.smtp.From)
	h("To", strings.Join(t.to, ", "))
	h("Subject", mime.QEncoding.Encode("utf-8", subject))
	h("Date", t.clock.Now().Format(time.RFC1123Z))
	h("Message-ID", "<"+randomID()+"@hermes>")
	if p.Msg.Job != "" {
		h("X-Hermes-Job", mime.QEncoding.Encode("utf-8", p.Msg.Job))
	}
	if p.Msg.RunID != "" {
		h("X-Hermes-Run", p.Msg.RunID)
	}
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=utf-8")
	h("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(strings.ReplaceAll(p.Text, "\n", "\r\n")))
	_ = qp.Close()
	return b.Bytes()
}

func randomID() string {
	var buf [12]byte
	_, _ = rand.Read(buf[:])
	return hex.EncodeToString(buf[:])
}
