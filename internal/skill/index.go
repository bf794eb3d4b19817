package skill

import (
	"fmt"
	"strings"
)

// DefaultFullLimit is how many visible skills the index lists with their
// descriptions; beyond it the index lists names only.
const DefaultFullLimit = 60

// indexDescriptionChars caps a description in the full index: the index
// sits in every request's system prompt, and the model reads the whole
// description with skill_view when a skill looks relevant.
const indexDescriptionChars = 160

// Availability is what the current run offers, for the index's conditions.
type Availability struct {
	Toolsets []string
	Tools    []string
	// Only, when set, limits the index to the skills of these names: a
	// role agent's own subset.
	Only []string
}

// Guidance tells the model how to use and maintain skills (Hermes's
// SKILLS_GUIDANCE, adapted). It heads the index.
const Guidance = `## Skills
Skills are procedures saved from earlier work. Before starting a task, check whether a skill below fits; if one does, read it with skill_view(name) and follow it.
After completing a complex task (5+ tool calls), fixing a tricky error, or discovering a non-trivial workflow, save the approach as a skill with skill_manage so it can be reused next time.
When a skill turns out outdated, incomplete or wrong while you use it, patch it immediately with skill_manage(action="patch") — don't wait to be asked. Skills that aren't maintained become liabilities.`

// visible returns the skills the index shows: those for this platform
// whose required toolsets and tools are available and that are not a
// fallback for something available.
func (l *Library) visible(avail Availability) []*Skill {
	var out []*Skill
	for _, sk := range l.Skills() {
		if shown(sk, avail) {
			out = append(out, sk)
		}
	}
	return out
}

// shown applies a skill's metadata.hermes conditions.
func shown(sk *Skill, avail Availability) bool {
	if len(avail.Only) > 0 && !contains(avail.Only, sk.Name) {
		return false
	}
	for _, ts := range sk.RequiresToolsets {
		if !contains(avail.Toolsets, ts) {
			return false
		}
	}
	for _, t := range sk.RequiresTools {
		if !contains(avail.Tools, t) {
			return false
		}
	}
	for _, ts := range sk.FallbackForToolsets {
		if contains(avail.Toolsets, ts) {
			return false
		}
	}
	for _, t := range sk.FallbackForTools {
		if contains(avail.Tools, t) {
			return false
		}
	}
	return true
}

// Collapsed reports whether Index lists names only, which is when the
// skills_search tool should be offered.
func (l *Library) Collapsed(avail Availability, fullLimit int) bool {
	if fullLimit <= 0 {
		fullLimit = DefaultFullLimit
	}
	return len(l.visible(avail)) > fullLimit
}

// Index renders the skills index for the system prompt: the guidance, then
// the visible skills grouped by category as "name: description" lines, or,
// with more than fullLimit (0 means DefaultFullLimit) skills, one line of
// names per category and a pointer to skills_search. The same library and
// arguments always give the same bytes, so the prompt prefix stays cached.
func (l *Library) Index(avail Availability, fullLimit int) string {
	if fullLimit <= 0 {
		fullLimit = DefaultFullLimit
	}
	skills := l.visible(avail)
	var b strings.Builder
	b.WriteString(Guidance)
	b.WriteString("\n\n")
	if len(skills) == 0 {
		b.WriteString("No skills are saved yet.\n")
		return b.String()
	}
	collapsed := len(skills) > fullLimit
	b.WriteString("<available_skills>\n")
	for i := 0; i < len(skills); {
		group := skills[i].group()
		j := i
		for j < len(skills) && skills[j].group() == group {
			j++
		}
		if collapsed {
			names := make([]string, 0, j-i)
			for _, sk := range skills[i:j] {
				names = append(names, sk.Name)
			}
			fmt.Fprintf(&b, "%s: %s\n", group, strings.Join(names, ", "))
		} else {
			fmt.Fprintf(&b, "%s:\n", group)
			for _, sk := range skills[i:j] {
				fmt.Fprintf(&b, "  - %s: %s\n", sk.Name, oneLine(sk.Description, indexDescriptionChars))
			}
		}
		i = j
	}
	b.WriteString("</available_skills>\n")
	if collapsed {
		fmt.Fprintf(&b, "%d skills; only their names are listed. Use skills_search(query) to find one by topic, then skill_view(name) to read it.\n", len(skills))
	}
	return b.String()
}

// oneLine folds s onto one line and caps it at n runes.
func oneLine(s string, n int) string {
	return truncate(strings.Join(strings.Fields(s), " "), n)
}
