package tui

import (
	tea "charm.land/bubbletea/v2"
)

// The keys of the interface:
//
//	Enter            send the input
//	Alt-Enter, Ctrl-J  a new line in the input
//	Ctrl-C           interrupt the turn; again (or when idle) quit
//	Ctrl-D           quit, on an empty input
//	PgUp, PgDn       scroll the transcript
//	Up, Down         walk the input history
//	Ctrl-R           search the history for the input typed so far
//	Tab              complete a /command
//	Ctrl-O           expand or collapse the last tool card
//	Ctrl-T           expand or collapse the last reasoning
//
// In the approval modal: o (once), s (session), a (always), d or Esc (deny).
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		if m.approval != nil {
			m.answer(approvalDeny)
		}
		return m.interrupt()
	}
	if m.approval != nil {
		m.answer(s)
		return nil
	}
	switch s {
	case "enter":
		return m.submit()
	case "alt+enter", "ctrl+j", "shift+enter":
		m.in.insert("\n")
	case "ctrl+d":
		if len(m.in.text) == 0 {
			if m.running && m.cancel != nil {
				m.cancel()
			}
			return tea.Quit
		}
	case "backspace":
		m.in.backspace()
	case "left":
		m.in.left()
	case "right":
		m.in.right()
	case "up":
		if l, ok := m.hist.prev(m.in.String()); ok {
			m.in.set(l)
		}
	case "down":
		if l, ok := m.hist.next(); ok {
			m.in.set(l)
		}
	case "ctrl+r":
		if l, ok := m.hist.search(m.in.String()); ok {
			m.in.set(l)
		}
	case "tab":
		if c := m.completions(); len(c) > 0 {
			m.in.set("/" + c[0] + " ")
		}
	case "pgup":
		m.scroll += max(m.height/2, 1)
	case "pgdown":
		m.scroll = max(m.scroll-max(m.height/2, 1), 0)
	case "ctrl+o":
		m.toggleLast(entryTool)
	case "ctrl+t":
		m.toggleLast(entryReasoning)
	default:
		if k.Text != "" {
			m.in.insert(k.Text)
		}
	}
	return nil
}

// approvalDeny marks an approval answered by Ctrl-C.
const approvalDeny = "d"

// answer answers the open approval with key k.
func (m *model) answer(k string) {
	if a, ok := approvalKey(k); ok && m.approval != nil {
		m.approval.reply <- a
		m.approval = nil
	}
}

// toggleLast expands or collapses the last entry of kind.
func (m *model) toggleLast(kind entryKind) {
	for i := len(m.entries) - 1; i >= 0; i-- {
		if e := m.entries[i]; e.kind == kind {
			e.expanded = !e.expanded
			e.dirty = true
			return
		}
	}
}
