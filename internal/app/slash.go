package app

import "github.com/hermes-go/hermes/internal/slash"

// Slash returns the slash commands of this hermes: its own and one per
// skill in the library, as the skills are when asked.
func (a *App) Slash() slash.Registry {
	return slash.Registry{Skills: func() []slash.Command {
		if a.Tools == nil || a.Tools.Skills == nil {
			return nil
		}
		var out []slash.Command
		for _, s := range a.Tools.Skills.Skills() {
			out = append(out, slash.Command{Name: s.Name, Description: s.Description})
		}
		return out
	}}
}
