package markdown

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// streamCache is what a Renderer keeps from its last call so that the next
// one, on the same reply grown by a few tokens, parses and renders only the
// blocks that are still open: the reply up to cut renders as closed, and
// stays so whatever is appended.
type streamCache struct {
	prefix string   // the source up to the cut
	width  int      // the width closed was rendered at
	closed []string // the rendered blocks before the cut
}

// reuse returns the cached cut and closed blocks when src extends the
// cached source at the same width, else 0 and nil. A reply with a link
// reference definition ("[x]: url") is rendered whole every time: a
// definition further down changes links above it.
func (c *streamCache) reuse(src string, width int) (int, []string) {
	if c.width != width || c.prefix == "" || !strings.HasPrefix(src, c.prefix) || strings.Contains(src, "]:") {
		return 0, nil
	}
	return len(c.prefix), c.closed
}

// cutAfter returns the offset in src where the block after top-level node
// i starts anew, such that parsing src from there alone gives the same
// blocks: a line that follows a blank line, begins without indentation, and
// lies between the end of node i and the first text of node i+1. It returns
// -1 where no such line can be found for sure (node i without text of its
// own, such as a rule, or a raw HTML block, whose closing line is not kept).
func cutAfter(src []byte, prev, next ast.Node) int {
	switch prev.(type) {
	case *ast.HTMLBlock, *ast.ThematicBreak:
		return -1
	}
	_, end := extent(prev)
	start, _ := extent(next)
	if end < 0 || start < 0 {
		return -1
	}
	if _, ok := prev.(*ast.FencedCodeBlock); ok {
		if end = nextLine(src, lineAfter(src, end)); end < 0 { // past the closing fence
			return -1
		}
	}
	cut := -1
	for k := lineAfter(src, end); k >= 0 && k <= start && k < len(src); k = nextLine(src, k) {
		if k >= 2 && blankLineBefore(src, k) && src[k] != ' ' && src[k] != '\t' && src[k] != '\n' {
			cut = k
		}
	}
	return cut
}

// extent returns the first and last source offsets of the text that node n
// and its descendants hold, or -1 when they hold none.
func extent(n ast.Node) (int, int) {
	first, last := -1, -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if c.Type() == ast.TypeBlock {
			lines := c.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				if first < 0 || seg.Start < first {
					first = seg.Start
				}
				last = max(last, seg.Stop)
			}
		}
		return ast.WalkContinue, nil
	})
	return first, last
}

// lineAfter returns the start of the line after the one holding offset i
// (i itself when it starts a line), or -1 when there is none.
func lineAfter(src []byte, i int) int {
	if i > 0 && i <= len(src) && src[i-1] == '\n' {
		return i
	}
	return nextLine(src, i)
}

// nextLine returns the start of the line after the one holding offset i,
// or -1 when there is none.
func nextLine(src []byte, i int) int {
	for ; i < len(src); i++ {
		if src[i] == '\n' {
			return i + 1
		}
	}
	return -1
}

// blankLineBefore reports whether the line before the one starting at k is
// empty or only spaces and tabs.
func blankLineBefore(src []byte, k int) bool {
	for j := k - 2; j >= 0; j-- {
		switch src[j] {
		case '\n':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}
