// Package udiff writes unified diffs (like diff -u) of two texts: what
// the file tools show of an edit, and what a checkpoint restore would
// change.
package udiff

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the LCS table of the changed middle of a diff; a
// larger change is shown as a block removed and a block added, which is
// still a correct diff, just not a minimal one.
const maxDiffCells = 1 << 20

// diffOp is one line of an edit script.
type diffOp struct {
	kind byte // ' ', '-' or '+'
	text string
}

// Unified returns a unified diff (like diff -u) turning a into b, with
// ctx lines of context, or "" when they are equal. A patch usually changes
// a few lines of a long file, so the common head and tail are matched
// directly and only the middle is diffed.
func Unified(name, a, b string, ctx int) string {
	if a == b {
		return ""
	}
	la, lb := SplitLines(a), SplitLines(b)
	p := 0
	for p < len(la) && p < len(lb) && la[p] == lb[p] {
		p++
	}
	s := 0
	for s < len(la)-p && s < len(lb)-p && la[len(la)-1-s] == lb[len(lb)-1-s] {
		s++
	}
	ops := make([]diffOp, 0, len(la)+len(lb)-p-s)
	for _, l := range la[:p] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, diffMiddle(la[p:len(la)-s], lb[p:len(lb)-s])...)
	for _, l := range la[len(la)-s:] {
		ops = append(ops, diffOp{' ', l})
	}

	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	aLine, bLine := 1, 1 // line numbers of ops[i] in a and b
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			aLine++
			bLine++
			i++
			continue
		}
		// A hunk starts ctx lines before this change and runs until a
		// stretch of more than 2*ctx unchanged lines.
		start := max(0, i-ctx)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*ctx {
				break
			}
		}
		end = min(len(ops), end+ctx)
		aStart, bStart := aLine-(i-start), bLine-(i-start)
		var body strings.Builder
		na, nb := 0, 0
		for _, op := range ops[start:end] {
			switch op.kind {
			case ' ':
				na++
				nb++
			case '-':
				na++
			case '+':
				nb++
			}
			body.WriteByte(op.kind)
			text := strings.TrimSuffix(op.text, "\n")
			body.WriteString(strings.TrimSuffix(text, "\r"))
			body.WriteByte('\n')
			if !strings.HasSuffix(op.text, "\n") {
				body.WriteString("\\ No newline at end of file\n")
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, na), hunkRange(bStart, nb))
		out.WriteString(body.String())
		for _, op := range ops[i:end] {
			if op.kind != '+' {
				aLine++
			}
			if op.kind != '-' {
				bLine++
			}
		}
		i = end
	}
	return out.String()
}

// hunkRange formats one side of a hunk header; an empty side names the
// line before it, as diff -u does.
func hunkRange(start, n int) string {
	if n == 0 {
		start--
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// diffMiddle returns an edit script from a to b, minimal by longest common
// subsequence when the table is small enough.
func diffMiddle(a, b []string) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	if len(a)*len(b) > maxDiffCells || len(a) == 0 || len(b) == 0 {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < len(b); j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}

// SplitLines splits s into lines that keep their "\n"; the last line has
// none when s does not end with one.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
