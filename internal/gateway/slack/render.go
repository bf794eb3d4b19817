package slack

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// RenderMrkdwn renders Markdown as the model writes it into Slack's
// mrkdwn. Every '&', '<' and '>' of the text is escaped (&amp; &lt;
// &gt;), because in mrkdwn "<…>" is a command: <!channel> pings everyone,
// <@U…> a person, <url|label> shows a label for any address. The only
// "<…>" the renderer writes is a Markdown link to an http, https or mailto
// address, whose address cannot end the link early. A marker left
// unbalanced (an odd '*', a '`' never closed) comes out as the character
// it is.
//
// It knows bold, italic, strikethrough, inline code, fenced code, links,
// headings (as bold), lists (as text with bullets) and blockquotes; the
// rest is text.
func RenderMrkdwn(md string) string {
	var b strings.Builder
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		line := lines[i]
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case len(line)-len(trimmed) < 4 && strings.HasPrefix(trimmed, "```"):
			i = renderFence(&b, lines, i, trimmed)
		case strings.HasPrefix(trimmed, ">"):
			// A quote is the one '>' written as it is: at the start of
			// a line, where it cannot close a "<…>".
			t := strings.TrimPrefix(strings.TrimPrefix(trimmed, ">"), " ")
			b.WriteString("> ")
			renderLine(&b, t)
		default:
			renderLine(&b, line)
		}
	}
	return b.String()
}

// escape escapes the three characters mrkdwn reserves.
func escape(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// renderLine renders one line outside code blocks.
func renderLine(b *strings.Builder, line string) {
	if text, ok := heading(line); ok {
		b.WriteString("*")
		renderInline(b, text)
		b.WriteString("*")
		return
	}
	if isRule(line) {
		b.WriteString("──────────")
		return
	}
	if indent, text, ok := bullet(line); ok {
		b.WriteString(indent + "• ")
		renderInline(b, text)
		return
	}
	renderInline(b, line)
}

// renderFence renders the fenced block opening at lines[i] and returns
// the index of its last line; a fence never closed runs to the end. A
// run of three backticks inside is broken with a zero-width space, since
// mrkdwn has no longer fences.
func renderFence(b *strings.Builder, lines []string, i int, open string) int {
	fence := open[:len(open)-len(strings.TrimLeft(open, "`"))]
	var body []string
	j := i + 1
	for ; j < len(lines); j++ {
		if t := strings.TrimSpace(lines[j]); strings.HasPrefix(t, fence) && strings.Trim(t, "`") == "" {
			break
		}
		body = append(body, lines[j])
	}
	code := strings.ReplaceAll(escape(strings.Join(body, "\n")), "```", "`\u200b``")
	b.WriteString("```\n" + code + "\n```")
	return min(j, len(lines)-1)
}

func heading(line string) (string, bool) {
	t := strings.TrimLeft(line, " ")
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n < 1 || n > 6 || len(line)-len(t) > 3 || (len(t) > n && t[n] != ' ') {
		return "", false
	}
	return strings.TrimRight(strings.TrimSpace(t[n:]), "# "), true
}

func isRule(line string) bool {
	t := strings.ReplaceAll(strings.TrimSpace(line), " ", "")
	return len(t) >= 3 && (strings.Trim(t, "-") == "" || strings.Trim(t, "*") == "" || strings.Trim(t, "_") == "")
}

func bullet(line string) (indent, text string, ok bool) {
	t := strings.TrimLeft(line, " ")
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return line[:len(line)-len(t)], t[2:], true
	}
	return "", "", false
}

// renderInline renders the spans of one line: code, bold, italic,
// strikethrough and links. A span is written only when its closing marker
// is found.
func renderInline(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		if n := renderSpan(b, s, i); n > 0 {
			i += n
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_~[]()#+-.!>|{}<&", s[i+1]) >= 0 {
			size = 2
			b.WriteString(escape(s[i+1 : i+2]))
		} else {
			b.WriteString(escape(s[i : i+size]))
		}
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
		end := strings.Index(rest[ticks:], rest[:ticks])
		if end <= 0 || strings.Contains(rest[ticks:ticks+end], "`") {
			return 0
		}
		b.WriteString("`" + escape(rest[ticks:ticks+end]) + "`")
		return 2*ticks + end
	case strings.HasPrefix(rest, "**") || strings.HasPrefix(rest, "__"):
		return wrap(b, s, i, rest[:2], "*")
	case strings.HasPrefix(rest, "~~"):
		return wrap(b, s, i, "~~", "~")
	case rest[0] == '*' || rest[0] == '_':
		return wrap(b, s, i, rest[:1], "_")
	case rest[0] == '[':
		return renderLink(b, rest)
	}
	return 0
}

// wrap writes the span between marker at s[i] and the next marker with
// mrkdwn's mark around it. The inside must not start or end with a
// space, and '_' markers must not stand inside a word (snake_case stays).
func wrap(b *strings.Builder, s string, i int, marker, mark string) int {
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
			b.WriteString(mark)
			renderInline(b, rest[:end])
			b.WriteString(mark)
			return len(marker) + end + len(marker)
		}
		from = end + len(marker)
		if len(marker) == 1 && strings.HasPrefix(rest[end:], marker+marker) {
			from = end + 2
		}
	}
}

// renderLink writes [label](url) as <url|label> when url is http, https
// or mailto and holds nothing that could end the link ('|', '<', '>',
// spaces); anything else is left as text.
func renderLink(b *strings.Builder, rest string) int {
	close := strings.Index(rest, "](")
	if close < 0 {
		return 0
	}
	end := strings.IndexByte(rest[close+2:], ')')
	if end < 0 {
		return 0
	}
	label, target := rest[1:close], strings.TrimSpace(rest[close+2:close+2+end])
	lower := strings.ToLower(target)
	if label == "" || strings.ContainsAny(target, " \t\"<>|") ||
		!(strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") || strings.HasPrefix(lower, "mailto:")) {
		return 0
	}
	b.WriteString("<" + escape(target) + "|")
	// The label may hold '|' and '>' only escaped: either would end it.
	var lb strings.Builder
	renderInline(&lb, label)
	b.WriteString(strings.ReplaceAll(lb.String(), "|", "¦") + ">")
	return close + 2 + end + 1
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune { r, _ := utf8.DecodeLastRuneInString(s); return r }

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
