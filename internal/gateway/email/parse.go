package email

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/emersion/go-message"
	// go-message reads parts and RFC 2047 headers in charsets other
	// than UTF-8 (GBK, Big5, ISO-8859-1, Shift_JIS ...) only when this
	// package is linked in: it sets go-message's CharsetReader.
	_ "github.com/emersion/go-message/charset"
	"github.com/emersion/go-message/mail"
)

// maxPartBytes caps the bytes read from one part of a mail, so a huge
// message cannot take the process's memory.
const maxPartBytes = 32 << 20

// inbound is a mail as the adapter needs it.
type inbound struct {
	// id is the Message-ID in angle brackets (a hash of the message
	// when it has none, so a redelivery still has the same id).
	id string
	// from is the sender's bare address, lower-cased; name is how the
	// sender is shown.
	from, name string
	subject    string
	// inReplyTo and references are the parent's ids, in angle brackets.
	inReplyTo  string
	references []string
	// text is the body as plain text, quoted history included.
	text  string
	files []attachment
	// automatic says why the mail is one hermes must not answer, "" for
	// none.
	automatic string
	// broken is why the body could not be read to its end, nil when it
	// could.
	broken error
	// header is the mail's header, for the checks made on it later.
	header message.Header
}

// attachment is a file that came with a mail.
type attachment struct {
	name, mime string
	data       []byte
}

// root is the thread the mail belongs to: the first id in References,
// else In-Reply-To, else the mail's own id.
func (m *inbound) root() string {
	if len(m.references) > 0 {
		return m.references[0]
	}
	if m.inReplyTo != "" {
		return m.inReplyTo
	}
	return m.id
}

// parse reads a whole message (RFC 5322, MIME, RFC 2047 headers in any
// charset go-message/charset knows).
func parse(raw []byte) (*inbound, error) {
	r, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		return nil, fmt.Errorf("email: reading the message: %w", err)
	}
	h := r.Header
	m := &inbound{}
	m.id = firstID(h.Get("Message-Id"))
	if m.id == "" {
		sum := sha256.Sum256(raw)
		m.id = "<" + hex.EncodeToString(sum[:16]) + "@no-message-id>"
	}
	if from, err := h.AddressList("From"); err == nil && len(from) > 0 {
		m.from, m.name = strings.ToLower(from[0].Address), from[0].Name
	}
	if m.name == "" {
		m.name = m.from
	}
	m.subject, _ = h.Subject()
	m.subject = oneLine(m.subject)
	m.inReplyTo = firstID(h.Get("In-Reply-To"))
	m.references = msgIDs(h.Get("References"))
	m.automatic = automatic(h.Header, m.from)
	m.header = h.Header
	var plain, html string
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !message.IsUnknownCharset(err) || p == nil {
			// A broken MIME structure: what was read so far is the
			// mail (mail programs show as much).
			m.broken = err
			break
		}
		data, err := io.ReadAll(io.LimitReader(p.Body, maxPartBytes))
		if err != nil {
			m.broken = err
			break
		}
		switch ph := p.Header.(type) {
		case *mail.InlineHeader:
			t, _, _ := ph.ContentType()
			switch {
			case t == "text/plain" && plain == "":
				plain = string(data)
			case t == "text/html" && html == "":
				html = string(data)
			case !strings.HasPrefix(t, "text/"):
				m.files = append(m.files, attachment{name: "inline", mime: t, data: data})
			}
		case *mail.AttachmentHeader:
			t, _, _ := ph.ContentType()
			name, _ := ph.Filename()
			m.files = append(m.files, attachment{name: name, mime: t, data: data})
		}
	}
	m.text = plain
	if strings.TrimSpace(m.text) == "" && html != "" {
		m.text = htmlText(html)
	}
	m.text = strings.ReplaceAll(m.text, "\r\n", "\n")
	return m, nil
}

// msgIDs returns the well-formed message ids in a header's value, in
// angle brackets, skipping the rest: one mangled id in a long References
// line must not lose the thread.
func msgIDs(v string) []string {
	var out []string
	for {
		start := strings.IndexByte(v, '<')
		if start < 0 {
			return out
		}
		end := strings.IndexByte(v[start:], '>')
		if end < 0 {
			return out
		}
		if id := v[start+1 : start+end]; validID(id) {
			out = append(out, "<"+id+">")
		}
		v = v[start+end+1:]
	}
}

// firstID is the first well-formed message id in v, "" for none.
func firstID(v string) string {
	if ids := msgIDs(v); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// validID reports whether id (without brackets) can go back into a
// header as it is: printable ASCII, no spaces, brackets or line breaks,
// so a crafted id cannot add header lines to a reply.
func validID(id string) bool {
	if id == "" || len(id) > 250 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c <= ' ' || c >= 0x7f || c == '<' || c == '>' {
			return false
		}
	}
	return true
}

// oneLine joins s into one line: a decoded header may hold line breaks
// (RFC 2047 encodes any byte), and a subject goes back into a reply's
// header.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\r' || r == '\n' || r == 0 }), " ")
}

// automatic says why a mail with header h from address from must not be
// answered, or "" when it may be: what RFC 3834 marks as automatic, lists
// (RFC 2369, 2919), delivery reports and bounces (RFC 3464: a null
// Return-Path, multipart/report, MAILER-DAEMON), and mail whose sender
// asked for no automatic replies. Answering any of them can start a mail
// loop.
func automatic(h message.Header, from string) string {
	if v := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted"))); v != "" && v != "no" {
		return "Auto-Submitted: " + v
	}
	switch v := strings.ToLower(strings.TrimSpace(h.Get("Precedence"))); v {
	case "bulk", "list", "junk", "auto_reply":
		return "Precedence: " + v
	}
	for _, k := range []string{"List-Id", "List-Unsubscribe", "List-Post", "X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress"} {
		if h.Has(k) {
			return k
		}
	}
	if rp := strings.TrimSpace(h.Get("Return-Path")); rp == "<>" {
		return "Return-Path: <> (a bounce)"
	}
	if t, _, _ := h.ContentType(); t == "multipart/report" {
		return "Content-Type: multipart/report (a delivery report)"
	}
	switch local, _, _ := strings.Cut(from, "@"); local {
	case "mailer-daemon", "postmaster", "noreply", "no-reply", "do-not-reply", "donotreply":
		return "From: " + from
	}
	return ""
}
