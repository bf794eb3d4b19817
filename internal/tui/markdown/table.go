package markdown

import (
	"strings"

	east "github.com/yuin/goldmark/extension/ast"
)

// table renders a table in a box, its columns narrowed to fit width (the
// widest first) and its cells wrapped, so that no row runs off the screen.
func (r *renderer) table(t *east.Table, width int) []string {
	var rows [][]cells
	head := 0
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		a := attr(0)
		if row.Kind() == east.KindTableHeader {
			a = aTableHead
			head++
		}
		var cols []cells
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cols = append(cols, r.inlines(c, a).trimLeft().trimRight())
		}
		rows = append(rows, cols)
	}
	ncol := 0
	for _, row := range rows {
		ncol = max(ncol, len(row))
	}
	if ncol == 0 {
		return nil
	}
	widths := columnWidths(rows, ncol, width-3*ncol-1)
	var out []string
	out = append(out, r.border("┌", "┬", "┐", widths))
	for i, row := range rows {
		if i == head && head > 0 {
			out = append(out, r.border("├", "┼", "┤", widths))
		}
		out = append(out, r.row(row, widths, t.Alignments)...)
	}
	return append(out, r.border("└", "┴", "┘", widths))
}

// columnWidths returns each column's width: its widest cell when all fit in
// avail columns, else narrowed one column at a time from the widest, down to
// two columns each (a CJK character).
func columnWidths(rows [][]cells, ncol, avail int) []int {
	widths := make([]int, ncol)
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], c.width(), 1)
		}
	}
	total := 0
	for _, w := range widths {
		total += w
	}
	for total > avail {
		widest := 0
		for i, w := range widths {
			if w > widths[widest] {
				widest = i
			}
		}
		if widths[widest] <= 2 {
			break
		}
		widths[widest]--
		total--
	}
	return widths
}

// border renders a horizontal border line.
func (r *renderer) border(left, mid, right string, widths []int) string {
	var b strings.Builder
	b.WriteString(left)
	for i, w := range widths {
		if i > 0 {
			b.WriteString(mid)
		}
		b.WriteString(strings.Repeat("─", w+2))
	}
	b.WriteString(right)
	return r.paint.plain(b.String(), aBorder)
}

// row renders one table row, as many lines as its tallest wrapped cell.
func (r *renderer) row(row []cells, widths []int, align []east.Alignment) []string {
	wrapped := make([][]cells, len(widths))
	height := 1
	for i := range widths {
		var c cells
		if i < len(row) {
			c = row[i]
		}
		wrapped[i] = wrap(c, widths[i])
		height = max(height, len(wrapped[i]))
	}
	bar := r.paint.plain("│", aBorder)
	out := make([]string, height)
	for line := range height {
		var b strings.Builder
		b.WriteString(bar)
		for i, w := range widths {
			var c cells
			if line < len(wrapped[i]) {
				c = wrapped[i][line]
			}
			gap := max(w-c.width(), 0)
			left := 0
			if i < len(align) {
				switch align[i] {
				case east.AlignRight:
					left = gap
				case east.AlignCenter:
					left = gap / 2
				}
			}
			b.WriteString(strings.Repeat(" ", left+1))
			b.WriteString(r.paint.paint(c))
			b.WriteString(strings.Repeat(" ", gap-left+1))
			b.WriteString(bar)
		}
		out[line] = b.String()
	}
	return out
}
