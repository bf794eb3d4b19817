package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// View draws the transcript's last lines that fit above the input (or
// the approval modal), the completion popup and the status bar.
func (m *model) View() tea.View {
	w := max(m.width, 20)
	var bottom []string
	if m.approval != nil {
		bottom = modalLines(m.approval.req, w)
	} else {
		for _, c := range m.completions() {
			bottom = append(bottom, sgrDim+ansi.Truncate("  /"+escapeLines(c)[0], w, "…")+sgrReset)
		}
		for i, l := range m.in.lines() {
			p := "  "
			if i == 0 {
				p = sgrUser + "› " + sgrReset
			}
			bottom = append(bottom, ansi.Truncate(p+l, w, "…"))
		}
	}
	bottom = append(bottom, m.statusLine(w))
	room := max(m.height-len(bottom), 1)

	var all []string
	for _, e := range m.entries {
		if len(all) > 0 {
			all = append(all, "")
		}
		all = append(all, e.render(w)...)
	}
	m.scroll = min(m.scroll, max(len(all)-room, 0))
	end := len(all) - m.scroll
	start := max(end-room, 0)
	shown := all[start:end]
	lines := make([]string, 0, m.height)
	for range room - len(shown) {
		lines = append(lines, "")
	}
	lines = append(lines, shown...)
	lines = append(lines, bottom...)
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.WindowTitle = "hermes"
	return v
}

// statusLine is the status bar: what Config.Status says, and what the
// interface is doing.
func (m *model) statusLine(w int) string {
	s := " " + m.status
	switch {
	case m.approval != nil:
		s += " · waiting for approval"
	case m.interrupted && m.running:
		s += " · interrupting"
	case m.running:
		s += " · working (Ctrl-C interrupts)"
	}
	if m.queued != "" {
		s += " · next: " + strings.Join(strings.Fields(m.queued), " ")
	}
	if m.scroll > 0 {
		s += " · scrolled (PgDn)"
	}
	s = ansi.Truncate(escapeLines(s)[0], w, "…")
	return sgrStatus + s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0)) + sgrReset
}
