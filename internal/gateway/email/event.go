package email

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// event turns a fetched mail into the gateway's Event; ok is false for
// mail hermes must not answer: automatic mail and lists (a loop), its own
// mail, mail without a sender, mail that cannot be read. An error is the
// state's: the mail is to be offered again.
func (a *Adapter) event(ctx context.Context, raw []byte) (gateway.Event, bool, error) {
	m, err := parse(raw)
	if err != nil {
		a.log.Warn("email: a mail that cannot be read is not answered", "err", err)
		return gateway.Event{}, false, nil
	}
	if m.broken != nil {
		a.log.Warn("email: a mail's body is broken; taking what could be read", "message_id", m.id, "err", m.broken)
	}
	switch {
	case m.from == "":
		a.log.Info("email: a mail without a sender is not answered", "message_id", m.id)
		return gateway.Event{}, false, nil
	case m.from == a.from:
		a.log.Info("email: a mail from hermes's own address is not answered (a mail loop)", "message_id", m.id)
		return gateway.Event{}, false, nil
	case m.automatic != "":
		a.log.Info("email: automatic or list mail is not answered (a mail loop)", "message_id", m.id, "from", m.from, "why", m.automatic)
		return gateway.Event{}, false, nil
	case a.o.AuthservID != "" && !verified(m.header, a.o.AuthservID, m.from[strings.LastIndexByte(m.from, '@')+1:]):
		a.log.Warn("email: a mail whose sender is not verified is not answered (its From may be forged)", "message_id", m.id, "from", m.from,
			"why", "the Authentication-Results of "+a.o.AuthservID+" show no DKIM or DMARC pass for the sender's domain")
		return gateway.Event{}, false, nil
	}
	root := m.root()
	// The reply answers this mail: it continues this mail's References
	// (or its In-Reply-To, when it has none, as RFC 5322 says).
	refs := strings.Join(m.references, " ")
	if refs == "" {
		refs = m.inReplyTo
	}
	if err := a.recordThread(ctx, m, root, refs); err != nil {
		return gateway.Event{}, false, err
	}
	text := stripQuotes(m.text)
	if root == m.id && m.subject != "" && !strings.HasPrefix(text, "/") {
		// The first mail of a thread: its subject is part of what it
		// says. A command stays a command.
		text = strings.TrimSpace("Subject: " + m.subject + "\n\n" + text)
	}
	ev := gateway.Event{
		ID:        m.id,
		Kind:      gateway.KindMessage,
		Chat:      gateway.Chat{ID: m.from, Type: gateway.DM, Thread: root},
		User:      gateway.User{ID: m.from, Name: m.name},
		Received:  a.clock.Now(),
		Text:      text,
		Addressed: true,
		MessageID: m.id,
	}
	for _, f := range m.files {
		kind := "document"
		if strings.HasPrefix(f.mime, "image/") {
			kind = "photo"
		}
		data := f.data
		ev.Media = append(ev.Media, gateway.Media{Kind: kind, Name: f.name, MIME: f.mime, Size: int64(len(data)),
			Fetch: func(context.Context) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }})
	}
	return ev, true, nil
}

// recordThread makes m the last message of its thread, which the next
// reply answers, unless the thread has gone past it already: a mail
// offered again (a renumbered mailbox, a crash before it was marked read)
// must not make the reply answer an old message.
func (a *Adapter) recordThread(ctx context.Context, m *inbound, root, refs string) error {
	old, ok, err := a.state.Thread(ctx, m.from, root)
	if err != nil {
		return err
	}
	if ok && (old.LastID == m.id || slices.Contains(strings.Fields(old.References), m.id)) {
		return nil
	}
	return a.state.SetThread(ctx, m.from, root, Thread{Subject: baseSubject(m.subject), LastID: m.id, References: refs})
}

// baseSubject is subject without the reply prefixes mail programs add
// ("Re:", "RE:", "Aw:", "回复:" ...), so a reply says "Re:" once.
func baseSubject(subject string) string {
	for {
		s := strings.TrimSpace(subject)
		cut := false
		for _, p := range []string{"re:", "aw:", "sv:", "antw:", "réf:", "回复:", "回复：", "答复:", "答复：", "fwd:", "fw:"} {
			if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
				s, cut = s[len(p):], true
				break
			}
		}
		if !cut {
			return s
		}
		subject = s
	}
}
