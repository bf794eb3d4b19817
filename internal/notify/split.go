package notify

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxParts caps how many messages one result becomes on a platform that
// allows a series: past that a chat turns into a flood, and the Link
// carries the rest.
const maxParts = 10

// partHeaderRoom is kept free in each part for its "(2/3)" header.
const partHeaderRoom = 10

// unit measures a rune in a platform's length unit.
type unit func(r rune) int

// The units platforms count in: WeCom limits bytes of UTF-8 (a Chinese
// character is three), Slack counts characters, Telegram counts UTF-16
// code units (an emoji outside the BMP is two).
func bytesUnit(r rune) int { return utf8.RuneLen(r) }

func runesUnit(rune) int { return 1 }

func utf16Unit(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

func measure(s string, u unit) int {
	n := 0
	for _, r := range s {
		n += u(r)
	}
	return n
}

// Title styles: how a platform shows a heading line.
func boldTitle(t string) string  { return "**" + t + "**" }
func slackTitle(t string) string { return "*" + t + "*" }
func plainTitle(t string) string { return t }

// compose renders a message as one text: the title in the platform's
// heading style, the body, and the link.
func compose(msg Message, title func(string) string) string {
	var b strings.Builder
	if msg.Title != "" {
		b.WriteString(title(msg.Title) + "\n\n")
	}
	b.WriteString(msg.Text)
	if msg.Link != "" {
		b.WriteString("\n\n" + msg.Link)
	}
	return b.String()
}

// truncationNote ends a cut text and says where the whole of it is.
func truncationNote(msg Message) string {
	if msg.Link != "" {
		return "\n\n…(truncated; full text: " + msg.Link + ")"
	}
	if msg.Full != "" {
		return "\n\n…(truncated; full text: " + msg.Full + ")"
	}
	if msg.RunID != "" {
		return "\n\n…(truncated; full text in run " + msg.RunID + ")"
	}
	return "\n\n…(truncated)"
}

// fit returns text within limit units, cut at a rune boundary with the
// truncation note appended when it was too long.
func fit(msg Message, text string, limit int, u unit) string {
	if measure(text, u) <= limit {
		return text
	}
	note := truncationNote(msg)
	return cut(text, limit-measure(note, u), u) + note
}

// cut returns the longest prefix of s within limit units.
func cut(s string, limit int, u unit) string {
	n := 0
	for i, r := range s {
		if n+u(r) > limit {
			return s[:i]
		}
		n += u(r)
	}
	return s
}

// single is the one-part split of targets without a series.
func single(msg Message, text string) []Part {
	return []Part{{Msg: msg, Text: text, Index: 1, Count: 1}}
}

// series splits text into parts of at most limit units each, breaking at
// a line end where one falls in the second half of a part, and numbers
// them "(1/3)" when there is more than one. Text beyond maxParts parts
// is cut with the truncation note.
func series(msg Message, text string, limit int, u unit) []Part {
	if measure(text, u) <= limit {
		return single(msg, text)
	}
	room := limit - partHeaderRoom
	text = fit(msg, text, maxParts*room, u)
	var chunks []string
	for text != "" {
		c := cut(text, room, u)
		if c == "" { // a limit smaller than one rune: still make progress
			_, size := utf8.DecodeRuneInString(text)
			c = text[:size]
		}
		if len(c) < len(text) {
			if i := strings.LastIndexByte(c, '\n'); i > len(c)/2 {
				c = c[:i+1]
			}
		}
		chunks = append(chunks, c)
		text = text[len(c):]
	}
	parts := make([]Part, len(chunks))
	for i, c := range chunks {
		parts[i] = Part{Msg: msg, Text: fmt.Sprintf("(%d/%d)\n%s", i+1, len(chunks), c), Index: i + 1, Count: len(chunks)}
	}
	return parts
}
