package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tui/markdown"
)

// entryKind says how an entry of the transcript is drawn.
type entryKind uint8

const (
	entryUser entryKind = iota
	entryReply
	entryReasoning
	entryTool
	entryNote
)

// SGR styles of the transcript; each line closes what it opens.
const (
	sgrReset  = "\x1b[0m"
	sgrDim    = "\x1b[2m"
	sgrUser   = "\x1b[1;36m"
	sgrNote   = "\x1b[33m"
	sgrOK     = "\x1b[32m"
	sgrFail   = "\x1b[31m"
	sgrStatus = "\x1b[7m"
)

// entry is one block of the transcript. Its rendered lines are kept until
// its text or the width changes, so a long session is not re-rendered on
// every frame.
type entry struct {
	kind entryKind
	text string
	// expanded shows a reasoning block or a tool card whole.
	expanded bool
	// md renders a reply; it keeps the closed blocks between tokens.
	md *markdown.Renderer

	// A tool card's call and, when finished, its outcome.
	tool     string
	args     string
	result   string
	status   string // "" while running, else "ok" or the failure
	duration time.Duration

	lines []string
	width int
	dirty bool
}

// render returns the entry's lines for width columns.
func (e *entry) render(width int) []string {
	if !e.dirty && e.width == width && e.lines != nil {
		return e.lines
	}
	e.width, e.dirty = width, false
	switch e.kind {
	case entryUser:
		e.lines = prefixed(sgrUser+"› "+sgrReset, "  ", escapeLines(e.text), width)
	case entryReply:
		e.lines = strings.Split(e.md.Render(e.text, width), "\n")
	case entryReasoning:
		if !e.expanded {
			first := safety.Escape(strings.Join(strings.Fields(e.text), " "))
			e.lines = []string{sgrDim + ansi.Truncate("∴ "+first, width, "…") + sgrReset}
			break
		}
		e.lines = styled(sgrDim, prefixed("∴ ", "  ", escapeLines(e.text), width))
	case entryTool:
		e.lines = e.card(width)
	case entryNote:
		e.lines = styled(sgrNote, prefixed("· ", "  ", escapeLines(strings.TrimRight(e.text, "\n")), width))
	}
	return e.lines
}

// card is a tool call: one line, or with expanded its arguments and
// result below it.
func (e *entry) card(width int) []string {
	var mark string
	switch {
	case e.status == "":
		mark = "…"
	case e.status == string(tool.StatusOK):
		mark = sgrOK + "✓" + sgrReset + " " + e.duration.Round(time.Millisecond).String()
	default:
		mark = sgrFail + "✗" + sgrReset + " " + safety.Escape(strings.Join(strings.Fields(e.status), " "))
	}
	head := fmt.Sprintf("⚙ %s  %s", safety.Escape(e.tool), safety.Escape(ArgsLine(e.args)))
	line := ansi.Truncate(head, max(width-ansi.StringWidth(mark)-3, 10), "…") + "   " + mark
	lines := []string{ansi.Truncate(line, width, "…")}
	if !e.expanded {
		return lines
	}
	lines = append(lines, styled(sgrDim, prefixed("  args: ", "        ", escapeLines(e.args), width))...)
	if e.status != "" {
		lines = append(lines, styled(sgrDim, prefixed("  result: ", "          ", escapeLines(e.result), width))...)
	}
	return lines
}

// escapeLines splits s into lines, each with its control characters
// written as visible escapes.
func escapeLines(s string) []string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = safety.Escape(strings.TrimSuffix(l, "\r"))
	}
	return ls
}

// prefixed wraps lines to width, the first starting with first and the
// rest indented by rest.
func prefixed(first, rest string, lines []string, width int) []string {
	var out []string
	w := max(width-ansi.StringWidth(rest), 10)
	for _, l := range lines {
		for _, part := range strings.Split(ansi.Hardwrap(l, w, true), "\n") {
			p := rest
			if len(out) == 0 {
				p = first
			}
			out = append(out, p+part)
		}
	}
	return out
}

// styled wraps each line in an SGR style.
func styled(sgr string, lines []string) []string {
	for i, l := range lines {
		lines[i] = sgr + l + sgrReset
	}
	return lines
}

// ArgsLine shows a call's arguments on one line: the values of a JSON
// object in key order ("command: ls -la"), else the text as it is. It does
// not escape them: the caller draws them through safety.Escape.
func ArgsLine(args string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil || len(obj) == 0 {
		return strings.Join(strings.Fields(args), " ")
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, ok := obj[k].(string)
		if !ok {
			b, _ := json.Marshal(obj[k])
			v = string(b)
		}
		parts = append(parts, k+": "+v)
	}
	return strings.Join(strings.Fields(strings.Join(parts, ", ")), " ")
}
