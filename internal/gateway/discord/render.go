package discord

import (
	"strings"
	"unicode/utf8"
)

// Discord shows Markdown as it is, so the model's text needs no
// rendering, only defusing: "@everyone", "@here", "<@id>", "<@!id>" and
// "<@&id>" get a zero-width space after the "@", so they show as written
// and cannot ping anyone even where allowed_mentions would not hold
// (a client quoting the message, a webhook relaying it). Code spans and
// code blocks are left as they are: Discord finds no mentions in them.

// zwsp is the zero-width space put after a defused "@".
const zwsp = "\u200b"

// Render returns md as Discord content: the same Markdown with every
// mention outside code defused.
func Render(md string) string {
	if !strings.Contains(md, "@") {
		return md
	}
	var b strings.Builder
	b.Grow(len(md) + 16)
	fence := ""
	for _, line := range strings.SplitAfter(md, "\n") {
		t := strings.TrimLeft(line, " ")
		if marker := fenceMarker(t); marker != "" && len(line)-len(t) < 4 {
			switch {
			case fence == "":
				fence = marker
			case strings.HasPrefix(marker, fence[:1]) && len(marker) >= len(fence) && strings.TrimSpace(t[len(marker):]) == "":
				fence = ""
			}
			b.WriteString(line)
			continue
		}
		if fence != "" {
			b.WriteString(line)
			continue
		}
		defuseLine(&b, line)
	}
	return b.String()
}

// fenceMarker returns the run of three or more backticks or tildes that
// opens t, "" when t is not a fence line.
func fenceMarker(t string) string {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return ""
	}
	return t[:n]
}

// defuseLine writes line with the mentions outside inline code spans
// defused. A span opens with a run of backticks and closes with a run of
// the same length; a run never closed is text.
func defuseLine(b *strings.Builder, line string) {
	for i := 0; i < len(line); {
		if line[i] == '`' {
			n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
			if end := closingRun(line, i+n, n); end >= 0 {
				b.WriteString(line[i:end])
				i = end
				continue
			}
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		if n := mentionAt(line, i); n > 0 {
			at := strings.IndexByte(line[i:i+n], '@') + i
			b.WriteString(line[i : at+1])
			b.WriteString(zwsp)
			b.WriteString(line[at+1 : i+n])
			i += n
			continue
		}
		b.WriteByte(line[i])
		i++
	}
}

// closingRun returns the end of the run of exactly n backticks that
// closes a code span opened before from, or -1.
func closingRun(line string, from, n int) int {
	for j := from; j < len(line); {
		if line[j] != '`' {
			j++
			continue
		}
		m := len(line[j:]) - len(strings.TrimLeft(line[j:], "`"))
		if m == n {
			return j + m
		}
		j += m
	}
	return -1
}

// mentionAt returns the length of the mention that starts at s[i], 0 when
// none does: "@everyone", "@here", or "<@" with an optional "!" or "&",
// digits and ">".
func mentionAt(s string, i int) int {
	rest := s[i:]
	switch {
	case strings.HasPrefix(rest, "@everyone"):
		return len("@everyone")
	case strings.HasPrefix(rest, "@here"):
		return len("@here")
	case strings.HasPrefix(rest, "<@"):
		j := 2
		if j < len(rest) && (rest[j] == '!' || rest[j] == '&') {
			j++
		}
		k := j
		for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
			k++
		}
		if k > j && k < len(rest) && rest[k] == '>' {
			return k + 1
		}
	}
	return 0
}

// Len measures text as Discord will count its rendered content: code
// points, plus one for every mention Render may defuse (counted also in
// code, where it is not, so the count never falls as text grows). It is
// the gateway's Measure for Discord, so a reply split to MaxText by Len
// is accepted once rendered.
func Len(s string) int {
	n := utf8.RuneCountInString(s)
	if !strings.Contains(s, "@") {
		return n
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '@' || s[i] == '<' {
			if m := mentionAt(s, i); m > 0 {
				n++
				i += m - 1
			}
		}
	}
	return n
}
