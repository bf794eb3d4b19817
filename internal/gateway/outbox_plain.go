package gateway

import (
	"context"
	"strings"
)

// PlainSender is implemented by a Platform that can send text exactly as
// it is, without rendering its Markdown. The outbox resends a message the
// platform could not parse (BadFormat) this way once. It is an ability
// of its own rather than a field of Outgoing, so that Platform stays as
// it is and an adapter that has nothing better need not implement it.
type PlainSender interface {
	// SendPlain is Send with m.Text shown literally.
	SendPlain(ctx context.Context, chat Chat, m Outgoing) (MessageRef, error)
	// EditPlain is Edit with m.Text shown literally.
	EditPlain(ctx context.Context, ref MessageRef, m Outgoing) error
}

// markdownPunct is the ASCII punctuation CommonMark lets a backslash
// escape.
const markdownPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// EscapeMarkdown puts a backslash before every ASCII punctuation
// character of s, so that a renderer that follows CommonMark shows s
// literally. The outbox resends a BadFormat message this way to a
// platform that is not a PlainSender.
func EscapeMarkdown(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(markdownPunct, s[i]) >= 0 {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + n)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(markdownPunct, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
