package markdown

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// bullets are the unordered markers by nesting depth, repeating after three.
const bullets = "•◦▪"

// list renders an ordered or unordered list; an item's continuation lines
// line up under its text, and a task item shows its box instead of a bullet.
func (r *renderer) list(n *ast.List, width int) []string {
	r.depth++
	defer func() { r.depth-- }()
	markers := r.markers(n)
	mw := 0
	for _, m := range markers {
		mw = max(mw, m.width())
	}
	indent := strings.Repeat(" ", mw+1)
	var out []string
	i := 0
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		m := markers[i]
		i++
		if box, ok := taskBox(item); ok {
			m = styled(box, aMarker)
		}
		lines := r.blocks(item, width-mw-1)
		if len(lines) == 0 {
			lines = []string{""}
		}
		if len(out) > 0 && !n.IsTight {
			out = append(out, "")
		}
		pad := strings.Repeat(" ", mw-m.width()+1)
		if n.IsOrdered() {
			out = append(out, pad[1:]+r.paint.paint(m)+" "+lines[0])
		} else {
			out = append(out, r.paint.paint(m)+pad+lines[0])
		}
		for _, l := range lines[1:] {
			if l == "" {
				out = append(out, "")
			} else {
				out = append(out, indent+l)
			}
		}
	}
	return out
}

// markers returns each item's marker: the bullet of this depth, or the
// item's number counted from the list's start.
func (r *renderer) markers(n *ast.List) []cells {
	var ms []cells
	num := n.Start
	bl := []rune(bullets)
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if n.IsOrdered() {
			ms = append(ms, styled(strconv.Itoa(num)+string(n.Marker), aMarker))
			num++
		} else {
			ms = append(ms, styled(string(bl[(r.depth-1)%len(bl)]), aMarker))
		}
	}
	return ms
}

// taskBox returns the box of a task list item, ☐ or ☑.
func taskBox(item ast.Node) (string, bool) {
	first := item.FirstChild()
	if first == nil {
		return "", false
	}
	box, ok := first.FirstChild().(*east.TaskCheckBox)
	if !ok {
		return "", false
	}
	if box.IsChecked {
		return "☑", true
	}
	return "☐", true
}
