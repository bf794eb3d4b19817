package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// codeIndent is how far code block lines sit from the margin.
const codeIndent = "  "

// code renders a fenced or indented code block: the language above it, then
// its lines, highlighted when the language is known, tabs expanded, and
// lines longer than the width broken (never cut: a command the user may
// copy must be shown whole). An unterminated fence, as while a reply
// streams, renders the lines so far the same way.
func (r *renderer) code(n ast.Node, lang string, width int) []string {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	src := strings.TrimSuffix(b.String(), "\n")
	var out []string
	if lang != "" {
		out = append(out, r.paint.paint(wrap(styled(lang, aCodeLang), width)[0]))
	}
	cs := highlight(expandTabs(src), lang)
	inner := max(width-len(codeIndent), 1)
	for _, l := range splitLines(cs) {
		for _, part := range hardWrap(l, inner) {
			if len(part) == 0 {
				out = append(out, "")
				continue
			}
			out = append(out, codeIndent+r.paint.paint(part))
		}
	}
	return out
}

// expandTabs replaces tabs with spaces to the next multiple of four columns.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, c := range s {
		switch c {
		case '\t':
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(c)
			col = 0
		default:
			b.WriteRune(c)
			col += runeWidth(c)
		}
	}
	return b.String()
}

// splitLines splits cells at newline cells.
func splitLines(cs cells) []cells {
	var out []cells
	start := 0
	for i, c := range cs {
		if c.r == '\n' {
			out = append(out, cs[start:i])
			start = i + 1
		}
	}
	return append(out, cs[start:])
}

// hardWrap breaks a code line into pieces of at most width columns,
// keeping every character, spaces included.
func hardWrap(cs cells, width int) []cells {
	var out []cells
	start, col := 0, 0
	for i, c := range cs {
		if col+int(c.w) > width && col > 0 {
			out = append(out, cs[start:i])
			start, col = i, 0
		}
		col += int(c.w)
	}
	return append(out, cs[start:])
}
