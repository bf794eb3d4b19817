package config

import (
	"bytes"
	"strings"

	"github.com/goccy/go-yaml/token"
)

// Comments are placed on nodes the way a person reading the file would
// group them, so that a file rewritten from its tree keeps each comment
// beside what it describes:
//
//   - a comment after a value on its line is that value's line comment
//     (the key's, when the value is a block below it);
//   - comment lines above an entry, at its indentation or less, are its
//     head comment, unless a blank line parts them from it while they
//     follow the entry above directly, in which case they close that one;
//   - comment lines indented deeper than what follows, or at the end of
//     the document, are the foot comment of the last entry of the
//     innermost block they are indented into;
//   - comment lines at the top of the file parted from the content by a
//     blank line belong to the document itself, and so do those at the
//     end parted from the content by a blank line.

// block is a block mapping or sequence; its entries start at col.
type block struct {
	col    int
	parent *block
}

// entry is one key of a block mapping or one item of a block sequence:
// node takes its head and foot comments; line and col are where it starts
// (the "-" for an item).
type entry struct {
	node      *yamlNode
	line, col int
	block     *block
}

// role says what a comment after a token attaches to.
type role uint8

const (
	roleNode role = iota // the node itself
	roleKey              // the key whose value follows on later lines
	roleDash             // the item that follows a "-"
)

type owner struct {
	node *yamlNode
	role role
}

// own records that a comment after tk belongs to n; inside a flow
// collection it belongs to the outermost one, written after it closes.
func (c *converter) own(tk *token.Token, n *yamlNode, r role) {
	if tk == nil {
		return
	}
	if c.flow != nil {
		n, r = c.flow, roleNode
	}
	c.owners[tk] = owner{n, r}
}

// attachComments places the comments of the first document (those before
// line end) on doc's nodes.
func (c *converter) attachComments(doc *yamlNode, data []byte, tokens token.Tokens, end int) {
	lines := bytes.Split(data, []byte("\n"))
	blank := func(l int) bool { return l < 1 || l > len(lines) || len(bytes.TrimSpace(lines[l-1])) == 0 }
	var groups []*commentGroup
	for _, tk := range tokens {
		if tk.Type != token.CommentType || tk.Position == nil || tk.Position.Line >= end {
			continue
		}
		line, col := c.pos(tk)
		text := "#" + tk.Value
		if line <= len(lines) && !startsLine(lines[line-1], col) && c.lineComment(tk, text) {
			continue
		}
		if g := last(groups); g != nil && g.last == line-1 && g.col == col {
			g.text = append(g.text, text)
			g.last = line
			continue
		}
		groups = append(groups, &commentGroup{first: line, last: line, col: col, text: []string{text}})
	}
	pl := &placer{doc: doc, entries: c.entries, blank: blank}
	for _, g := range groups {
		prev, next := c.around(g)
		pl.place(g, prev, next)
	}
}

// placer decides where each full-line comment group goes.
type placer struct {
	doc     *yamlNode
	entries []entry
	blank   func(line int) bool
	docFoot bool   // the document's foot comment has begun
	headFor *entry // the entry whose head comment has begun
	gap     *entry // the entry the comments being placed follow
	footCol int    // the least column of the foot comments placed after gap
}

func (p *placer) place(g *commentGroup, prev, next *entry) {
	text := strings.Join(g.text, "\n")
	root := p.doc.Content[0]
	if prev != p.gap || p.gap == nil {
		p.gap, p.footCol = prev, g.col
	}
	// A foot comment never goes back into a block a comment above it has
	// already left.
	p.footCol = min(p.footCol, g.col)
	col := p.footCol
	switch {
	case root.Line == 0, prev == nil && g.last < root.Line && p.blankBetween(g.last+1, root.Line-1):
		// The comments at the top of the document, blank lines kept.
		if p.doc.HeadComment != "" && p.blank(g.first-1) {
			p.doc.HeadComment += "\n"
		}
		addComment(&p.doc.HeadComment, text)
	case prev == nil && next == nil && g.last < root.Line:
		addComment(&root.HeadComment, text)
	case next == nil && (p.docFoot || p.blank(g.first-1)):
		p.docFoot = true
		addComment(&p.doc.FootComment, text)
	case next == nil && prev != nil:
		addComment(&p.footTarget(prev, col).FootComment, text)
	case next == nil:
		addComment(&p.doc.FootComment, text)
	case prev == nil || p.headFor == next:
		p.head(next, text)
	default:
		closing := !p.blank(g.first-1) && p.blank(g.last+1)
		dedent := !within(next.block, prev.block)
		switch {
		case !dedent && closing:
			if t := p.lastEntry(next.block, g.first); t != nil {
				addComment(&t.FootComment, text)
			} else {
				p.head(next, text)
			}
		case dedent && (g.col < next.col || g.col > next.col && p.blank(g.first-1)):
			addComment(&prev.node.FootComment, text)
		case dedent && (g.col > next.col || closing):
			addComment(&p.footTarget(prev, col).FootComment, text)
		default:
			p.head(next, text)
		}
	}
}

// blankBetween reports whether a blank line lies in from..to.
func (p *placer) blankBetween(from, to int) bool {
	for l := from; l <= to; l++ {
		if p.blank(l) {
			return true
		}
	}
	return false
}

// head adds text to the head comment of e; the comment lines after it and
// before e go there too.
func (p *placer) head(e *entry, text string) {
	p.headFor = e
	addComment(&e.node.HeadComment, text)
}

// footTarget is the node that takes a foot comment written at column col
// after prev: the entry, at or before prev, of the outermost block around
// prev whose entries are indented at least as far as the comment.
func (p *placer) footTarget(prev *entry, col int) *yamlNode {
	b := prev.block
	for b.parent != nil && b.parent.col >= col {
		b = b.parent
	}
	if t := p.lastEntry(b, prev.line+1); t != nil {
		return t
	}
	return prev.node
}

// lastEntry is the node of the last entry of block b that starts before
// line, or nil.
func (p *placer) lastEntry(b *block, line int) *yamlNode {
	for i := len(p.entries) - 1; i >= 0; i-- {
		if e := &p.entries[i]; e.block == b && e.line < line {
			return e.node
		}
	}
	return nil
}

// within reports whether block b is a or lies inside it.
func within(b, a *block) bool {
	for ; b != nil; b = b.parent {
		if b == a {
			return true
		}
	}
	return false
}

// startsLine reports whether only blanks precede column col of line.
func startsLine(line []byte, col int) bool {
	for _, r := range string(line) {
		if col--; col < 1 {
			return true
		}
		if r != ' ' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}

// commentGroup is a run of comment lines at one column with no blank line
// between them.
type commentGroup struct {
	first, last, col int
	text             []string
}

func last(gs []*commentGroup) *commentGroup {
	if len(gs) == 0 {
		return nil
	}
	return gs[len(gs)-1]
}

// around finds the last entry that starts before g and the first after.
func (c *converter) around(g *commentGroup) (prev, next *entry) {
	for i := range c.entries {
		e := &c.entries[i]
		switch {
		case e.line < g.first:
			prev = e
		case e.line > g.last:
			return prev, e
		}
	}
	return prev, nil
}

// lineComment attaches a comment written after a token on its line to the
// node the token belongs to. It reports false when no node precedes the
// comment (it follows "---", say), which then goes with the comment lines.
func (c *converter) lineComment(tk *token.Token, text string) bool {
	for p := tk.Prev; p != nil; p = p.Prev {
		o, ok := c.owners[p]
		if !ok {
			continue
		}
		n := o.node
		switch {
		case o.role == roleDash && n.Kind == mappingNode && n.Style&flowStyle == 0 && len(n.Content) > 0:
			addComment(&n.Content[0].HeadComment, text)
			return true
		case o.role == roleDash:
			addComment(&n.HeadComment, text)
			return true
		case c.keyOf[n] != nil && (n.Anchor != "" || n.Style&taggedStyle != 0) && len(n.Content) > 0:
			// After "key: &anchor" the key's line already ends in
			// the anchor; the comment goes with the first entry.
			n = n.Content[0]
		case c.keyOf[n] != nil:
			n = c.keyOf[n]
		}
		addComment(&n.LineComment, text)
		return true
	}
	return false
}

// addComment appends a comment block to *field.
func addComment(field *string, text string) {
	if *field != "" {
		*field += "\n"
	}
	*field += text
}
