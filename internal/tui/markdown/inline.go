package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// inlines lays out the inline children of n (a paragraph, heading or table
// cell) as cells, each carrying a plus the elements it sits in.
func (r *renderer) inlines(n ast.Node, a attr) cells {
	var cs cells
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(&cs, c, a)
	}
	return cs
}

// inline appends one inline node and its children.
func (r *renderer) inline(cs *cells, n ast.Node, a attr) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(r.src)
		if n.IsRaw() {
			cs.add(string(v), a)
		} else {
			cs.add(unescape(v), a)
		}
		switch {
		case n.HardLineBreak():
			cs.addRune('\n', a)
		case n.SoftLineBreak():
			cs.addRune(' ', a)
		}
	case *ast.String:
		cs.add(string(n.Value), a)
	case *ast.CodeSpan:
		r.marked(cs, "`", aCode, a, func() {
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					cs.add(string(bytes.ReplaceAll(t.Segment.Value(r.src), []byte("\n"), []byte(" "))), a|aCode)
				}
			}
		})
	case *ast.Emphasis:
		bit, mark := aEmph, "*"
		if n.Level >= 2 {
			bit, mark = aStrong, "**"
		}
		r.marked(cs, mark, bit, a, func() { r.children(cs, n, a|bit) })
	case *east.Strikethrough:
		r.marked(cs, "~~", aStrike, a, func() { r.children(cs, n, a|aStrike) })
	case *ast.Link:
		start := len(*cs)
		r.children(cs, n, a|aLink)
		r.url(cs, string(n.Destination), (*cs)[start:], a)
	case *ast.AutoLink:
		label := string(n.Label(r.src))
		cs.add(label, a|aLink)
	case *ast.Image:
		cs.add("[image: ", a)
		r.children(cs, n, a)
		cs.add("]", a)
		cs.add(" ("+string(n.Destination)+")", a|aURL)
	case *ast.RawHTML:
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			cs.add(string(seg.Value(r.src)), a)
		}
	case *east.TaskCheckBox:
		// Drawn in place of the list item's bullet.
	default:
		r.children(cs, n, a)
	}
}

// children appends the inline children of n.
func (r *renderer) children(cs *cells, n ast.Node, a attr) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(cs, c, a)
	}
}

// marked appends what body adds, wrapped in the markdown mark when the
// style has no SGR for bit, so that emphasis stays visible without color.
func (r *renderer) marked(cs *cells, mark string, bit, a attr, body func()) {
	plain := r.style.field(bit) == ""
	if plain {
		cs.add(mark, a)
	}
	body()
	if plain {
		cs.add(mark, a)
	}
}

// url appends " (dest)" after a link's text, dimmed, unless the text is the
// address already. The address is shown as text, never as an OSC 8
// hyperlink: what the user sees is where the link goes.
func (r *renderer) url(cs *cells, dest string, label cells, a attr) {
	if dest == "" {
		return
	}
	var l []rune
	for _, c := range label {
		l = append(l, c.r)
	}
	if string(l) == dest || "mailto:"+string(l) == dest {
		return
	}
	cs.add(" ("+dest+")", a|aURL)
}

// unescape resolves backslash escapes and entity and numeric character
// references, as CommonMark does for text. A reference may decode to a
// control character (&#27; is ESC); the cells draw it visibly like any other.
func unescape(v []byte) string {
	if bytes.IndexByte(v, '\\') < 0 && bytes.IndexByte(v, '&') < 0 {
		return string(v)
	}
	var b []byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v) && util.IsPunct(v[i+1]):
			b = append(b, v[i+1])
			i++
			continue
		case c == '&':
			if j := bytes.IndexByte(v[i:min(len(v), i+34)], ';'); j > 1 {
				ref := v[i : i+j+1]
				res := util.ResolveEntityNames(util.ResolveNumericReferences(ref))
				if !bytes.Equal(res, ref) {
					b = append(b, res...)
					i += j
					continue
				}
			}
		}
		b = append(b, c)
	}
	return string(b)
}
