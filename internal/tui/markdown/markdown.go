// Package markdown renders a model's reply, written in markdown, as text for
// a terminal: headings, emphasis, code spans, links with their address,
// block quotes, nested and task lists, highlighted code blocks, tables fit
// to the width, and rules, with paragraphs wrapped by display width so that
// CJK text (two columns a character) wraps as evenly as English.
//
// The terminal UI re-renders a reply on every streamed token and on every
// resize, so Render is a pure function of its input, fast, and stable on
// prefixes: a block that is closed renders the same whatever follows it,
// and an unterminated code fence renders as code so far. A reply may carry
// text from a poisoned page, so no control character in it reaches the
// terminal raw: escape sequences, bidi overrides and the like are drawn as
// visible symbols (ESC as ␛), and the only escape sequences in the output
// are the SGR colors of the Style.
package markdown

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// minWidth is the narrowest width Render lays text out for; a narrower
// terminal gets lines of this width.
const minWidth = 10

// Render returns src rendered for a terminal width columns wide, lines
// separated by "\n" without a final newline. Each line closes the SGR it
// opens. Lines fit width except where a table has more columns than the
// width can hold at two characters each.
func Render(src string, width int, style Style) string {
	return New(style).Render(src, width)
}

// Renderer renders with one style and keeps, between calls, its markdown
// parser and the blocks of the last reply that are closed: the terminal UI
// holds one per reply and calls Render on every streamed token, and only
// the open blocks at the end are parsed and rendered again. It is safe for
// concurrent use.
type Renderer struct {
	style  Style
	parser parser.Parser
	mu     sync.Mutex
	cache  streamCache
}

// New returns a Renderer drawing with style.
func New(style Style) *Renderer {
	return &Renderer{style: style, parser: newParser()}
}

// Render is the package's Render with the Renderer's style. When src
// extends the source of the last call, the blocks closed then are reused.
func (rr *Renderer) Render(src string, width int) string {
	width = max(width, minWidth)
	src = normalizeNewlines(src)
	rr.mu.Lock()
	defer rr.mu.Unlock()
	cut, closed := rr.cache.reuse(src, width)
	tail := []byte(src[cut:])
	nodes, out := rr.render(tail, width)
	rr.cache = streamCache{prefix: src[:cut], width: width, closed: closed}
	for i := len(nodes) - 2; i >= 0; i-- {
		if k := cutAfter(tail, nodes[i], nodes[i+1]); k > 0 {
			rr.cache.prefix = src[:cut+k]
			rr.cache.closed = append(closed[:len(closed):len(closed)], out[:i+1]...)
			break
		}
	}
	return joinBlocks(append(closed[:len(closed):len(closed)], out...))
}

// joinBlocks joins rendered blocks with a blank line, skipping empty ones.
func joinBlocks(blocks []string) string {
	var b strings.Builder
	for _, s := range blocks {
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	return b.String()
}

// renderer holds what one Render call shares between its blocks.
type renderer struct {
	src   []byte
	style Style
	paint painter
	depth int // nesting of lists, for the bullet shape
}

// blocks renders each top-level block of src on its own, so that the
// streaming tests can compare the closed blocks of a prefix with those of
// the whole reply.
func (rr *Renderer) blocks(src string, width int) []string {
	_, out := rr.render([]byte(normalizeNewlines(src)), max(width, minWidth))
	var blocks []string
	for _, s := range out {
		if s != "" {
			blocks = append(blocks, s)
		}
	}
	return blocks
}

// render parses src and renders each top-level block, returning the blocks'
// nodes and their text ("" for a block that draws nothing).
func (rr *Renderer) render(src []byte, width int) ([]ast.Node, []string) {
	r := &renderer{src: src, style: rr.style}
	r.paint.style = &r.style
	doc := rr.parser.Parse(text.NewReader(src))
	var nodes []ast.Node
	var out []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		nodes = append(nodes, n)
		out = append(out, strings.Join(r.block(n, width), "\n"))
	}
	return nodes, out
}

// newParser returns a CommonMark parser with GitHub's tables, task lists
// and strikethrough, the extensions models write.
func newParser() parser.Parser {
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.TaskList, extension.Strikethrough))
	return md.Parser()
}

// normalizeNewlines turns CRLF into LF and leaves a lone CR for the cells to
// draw as ␍: a carriage return moves the cursor back over the line, and
// CommonMark would otherwise take it for a line ending.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "␍")
}

// block renders one block node as lines at most width columns wide.
func (r *renderer) block(n ast.Node, width int) []string {
	width = max(width, 1)
	switch n := n.(type) {
	case *ast.Heading:
		return r.heading(n, width)
	case *ast.Paragraph, *ast.TextBlock:
		return r.paint.paintAll(wrap(r.inlines(n, 0).trimLeft(), width))
	case *ast.ThematicBreak:
		return []string{r.paint.plain(strings.Repeat("─", width), aRule)}
	case *ast.FencedCodeBlock:
		return r.code(n, string(n.Language(r.src)), width)
	case *ast.CodeBlock:
		return r.code(n, "", width)
	case *ast.Blockquote:
		return r.quote(n, width)
	case *ast.List:
		return r.list(n, width)
	case *ast.HTMLBlock:
		return r.html(n, width)
	case *east.Table:
		return r.table(n, width)
	}
	return r.blocks(n, width)
}

// blocks renders the block children of a container, a blank line between
// them except after the text of a tight list item.
func (r *renderer) blocks(n ast.Node, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := r.block(c, width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && c.PreviousSibling().Kind() != ast.KindTextBlock {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// heading renders a heading with its # marks, so the level shows without
// color too.
func (r *renderer) heading(n *ast.Heading, width int) []string {
	a := aHeading
	if n.Level == 1 {
		a = aHeading1
	}
	cs := styled(strings.Repeat("#", n.Level)+" ", a)
	cs = append(cs, r.inlines(n, a)...)
	return r.paint.paintAll(wrap(cs, width))
}

// quote renders a block quote behind a bar.
func (r *renderer) quote(n *ast.Blockquote, width int) []string {
	inner := r.blocks(n, width-2)
	bar := r.paint.plain("│ ", aQuote)
	barOnly := r.paint.plain("│", aQuote)
	for i, l := range inner {
		if l == "" {
			inner[i] = barOnly
		} else {
			inner[i] = bar + l
		}
	}
	return inner
}

// html renders a raw HTML block as the text it is: the terminal has no use
// for the markup, and the user should see what the model wrote.
func (r *renderer) html(n *ast.HTMLBlock, width int) []string {
	var cs cells
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		cs.add(string(seg.Value(r.src)), 0)
	}
	if n.HasClosure() {
		cs.add(string(n.ClosureLine.Value(r.src)), 0)
	}
	return r.paint.paintAll(wrap(cs.trimNewline(), width))
}

// trimLeft drops leading spaces, such as the one after a task box.
func (cs cells) trimLeft() cells {
	for len(cs) > 0 && cs[0].r == ' ' {
		cs = cs[1:]
	}
	return cs
}

// trimNewline drops one final newline cell.
func (cs cells) trimNewline() cells {
	if len(cs) > 0 && cs[len(cs)-1].r == '\n' {
		return cs[:len(cs)-1]
	}
	return cs
}
