package tui

import "strings"

// maxCompletions is how many matching commands the popup lists.
const maxCompletions = 6

// completions lists the commands that start with the /word being typed,
// while the input is that one word.
func (m *model) completions() []string {
	s := m.in.String()
	if !strings.HasPrefix(s, "/") || strings.ContainsAny(s, " \n") {
		return nil
	}
	var out []string
	for _, c := range m.cfg.Commands {
		if strings.HasPrefix(c, s[1:]) && c != s[1:] {
			out = append(out, c)
			if len(out) == maxCompletions {
				break
			}
		}
	}
	return out
}
