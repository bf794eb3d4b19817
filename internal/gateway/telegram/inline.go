package telegram

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// renderInline renders the spans of one line: code, bold, italic,
// strikethrough and links. A span is written only when its closing marker
// is found, and its inside is rendered on its own, so tags always nest.
func renderInline(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		if n := renderSpan(b, s, i); n > 0 {
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_~[]()#+-.!>|{}", s[i+1]) >= 0 {
			b.WriteString(html.EscapeString(s[i+1 : i+2]))
			i += 2
			continue
		}
		b.WriteString(html.EscapeString(s[i : i+size]))
		i += size
	}
}

// renderSpan writes the span that opens at s[i] and returns how many bytes
// it took, or 0 when none opens there.
func renderSpan(b *strings.Builder, s string, i int) int {
	rest := s[i:]
	switch {
	case rest[0] == '`':
		ticks := len(rest) - len(strings.TrimLeft(rest, "`"))
		fence := rest[:ticks]
		end := strings.Index(rest[ticks:], fence)
		if end <= 0 {
			return 0
		}
		b.WriteString("<code>" + html.EscapeString(rest[ticks:ticks+end]) + "</code>")
		return ticks + end + ticks
	case strings.HasPrefix(rest, "**") || strings.HasPrefix(rest, "__"):
		return wrap(b, s, i, rest[:2], "b")
	case strings.HasPrefix(rest, "~~"):
		return wrap(b, s, i, "~~", "s")
	case rest[0] == '*' || rest[0] == '_':
		return wrap(b, s, i, rest[:1], "i")
	case rest[0] == '[':
		return renderLink(b, rest)
	}
	return 0
}

// wrap writes the span between marker at s[i] and the next marker as tag.
// The inside must not start or end with a space, and '_' markers must not
// stand inside a word (snake_case stays as it is).
func wrap(b *strings.Builder, s string, i int, marker, tag string) int {
	rest := s[i+len(marker):]
	if rest == "" || rest[0] == ' ' || (marker[0] == '_' && i > 0 && isWord(lastRune(s[:i]))) {
		return 0
	}
	from := 0
	for {
		end := strings.Index(rest[from:], marker)
		if end < 0 {
			return 0
		}
		end += from
		after := rest[end+len(marker):]
		ok := end > 0 && rest[end-1] != ' ' &&
			!(len(marker) == 1 && strings.HasPrefix(after, marker)) &&
			!(marker[0] == '_' && after != "" && isWord(firstRune(after)))
		if ok {
			b.WriteString("<" + tag + ">")
			renderInline(b, rest[:end])
			b.WriteString("</" + tag + ">")
			return len(marker) + end + len(marker)
		}
		from = end + len(marker)
		if len(marker) == 1 && strings.HasPrefix(rest[end:], marker+marker) {
			from = end + 2
		}
	}
}

// renderLink writes [text](url) as a link when url is http, https, mailto
// or tg; anything else is left as text.
func renderLink(b *strings.Builder, rest string) int {
	close := strings.Index(rest, "](")
	if close < 0 {
		return 0
	}
	end := strings.IndexByte(rest[close+2:], ')')
	if end < 0 {
		return 0
	}
	text, target := rest[1:close], strings.TrimSpace(rest[close+2:close+2+end])
	lower := strings.ToLower(target)
	if text == "" || strings.ContainsAny(target, " \"<>") || !(strings.HasPrefix(lower, "http://") ||
		strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "mailto:") || strings.HasPrefix(lower, "tg://")) {
		return 0
	}
	b.WriteString(`<a href="` + html.EscapeString(target) + `">`)
	renderInline(b, text)
	b.WriteString("</a>")
	return close + 2 + end + 1
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune { r, _ := utf8.DecodeLastRuneInString(s); return r }

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
