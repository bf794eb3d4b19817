package telegram

import (
	"html"
	"strings"
)

// RenderHTML renders Markdown as the model writes it into Telegram's HTML
// parse_mode. Every tag it writes is closed by construction and every
// other '&', '<' and '>' is escaped, so no text can make Telegram refuse
// the message: a marker left unbalanced (an odd '*', a '`' never closed)
// comes out as the character it is.
//
// It knows bold, italic, strikethrough, inline code, fenced code with a
// language, links, headings (as bold), lists (as text with bullets) and
// blockquotes; the rest is text.
func RenderHTML(md string) string {
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
			i = renderQuote(&b, lines, i)
		default:
			renderLine(&b, line)
		}
	}
	return b.String()
}

// renderLine renders one line outside code blocks and quotes.
func renderLine(b *strings.Builder, line string) {
	if text, ok := heading(line); ok {
		b.WriteString("<b>")
		renderInline(b, text)
		b.WriteString("</b>")
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
// the index of its last line; a fence never closed runs to the end.
func renderFence(b *strings.Builder, lines []string, i int, open string) int {
	fence := open[:len(open)-len(strings.TrimLeft(open, "`"))]
	lang := strings.TrimSpace(open[len(fence):])
	if f := strings.Fields(lang); len(f) > 0 {
		lang = f[0]
	}
	var body []string
	j := i + 1
	for ; j < len(lines); j++ {
		if t := strings.TrimSpace(lines[j]); strings.HasPrefix(t, fence) && strings.Trim(t, "`") == "" {
			break
		}
		body = append(body, lines[j])
	}
	code := html.EscapeString(strings.Join(body, "\n"))
	if isLang(lang) {
		b.WriteString(`<pre><code class="language-` + html.EscapeString(lang) + `">` + code + "</code></pre>")
	} else {
		b.WriteString("<pre>" + code + "</pre>")
	}
	return min(j, len(lines)-1)
}

// renderQuote renders the run of '>' lines starting at lines[i] as one
// blockquote and returns the index of its last line.
func renderQuote(b *strings.Builder, lines []string, i int) int {
	b.WriteString("<blockquote>")
	j := i
	for ; j < len(lines); j++ {
		t := strings.TrimLeft(lines[j], " ")
		if !strings.HasPrefix(t, ">") {
			break
		}
		if j > i {
			b.WriteByte('\n')
		}
		t = strings.TrimPrefix(t, ">")
		t = strings.TrimPrefix(t, " ")
		renderLine(b, t)
	}
	b.WriteString("</blockquote>")
	return j - 1
}
