// Package slash is the one list of the slash commands people type to
// hermes, shared by every front that takes them (the terminal chat, the
// chat platforms), so a command means the same everywhere and /help and
// Telegram's command menu are made from the same definitions. Skills are
// commands too: /<skill-name> [instruction].
package slash

import (
	"fmt"
	"sort"
	"strings"
)

// Front is a set of places a command works in.
type Front uint8

// The fronts that take slash commands.
const (
	// CLI is hermes chat in a terminal.
	CLI Front = 1 << iota
	// Chat is a chat platform through the gateway.
	Chat
	// Both is every front.
	Both = CLI | Chat
)

// Command is one slash command.
type Command struct {
	// Name is what follows the slash, in lower case.
	Name string
	// Aliases are other names for it.
	Aliases []string
	// Args shows its arguments in help ("[name]"), "" for none.
	Args string
	// Description says what it does, in one line.
	Description string
	// Where lists the fronts that take it.
	Where Front
	// Skill is set for a skill's command.
	Skill bool
	// Category groups it in /help.
	Category string
}

// The categories of /help, in its order.
const (
	CatSession   = "Session"
	CatModel     = "Model and tools"
	CatApproval  = "Approvals"
	CatKnowledge = "Memory and skills"
	CatOther     = "Other"
	CatSkills    = "Skills"
)

// categories is /help's order.
var categories = [...]string{CatSession, CatModel, CatApproval, CatKnowledge, CatOther, CatSkills}

// Usage is the command as help shows it: "/model [name]".
func (c Command) Usage() string {
	if c.Args == "" {
		return "/" + c.Name
	}
	return "/" + c.Name + " " + c.Args
}

// builtins returns the commands hermes itself defines, in help order.
func builtins() []Command {
	return []Command{
		{Name: "new", Aliases: []string{"reset"}, Description: "start a new session", Where: Both, Category: CatSession},
		{Name: "resume", Args: "[number|id]", Description: "list recent sessions, or continue one", Where: CLI, Category: CatSession},
		{Name: "title", Args: "[text]", Description: "show or set this session's title", Where: CLI, Category: CatSession},
		{Name: "compress", Args: "[focus]", Description: "compress the conversation now", Where: Both, Category: CatSession},
		{Name: "usage", Description: "this session's tokens and estimated cost", Where: Both, Category: CatSession},
		{Name: "export", Args: "[file]", Description: "write this session to a Markdown file", Where: CLI, Category: CatSession},
		{Name: "undo", Description: "take back the last exchange: your last message and everything after it", Where: CLI, Category: CatSession},
		{Name: "retry", Description: "take back the last answer and send your last message again", Where: CLI, Category: CatSession},
		{Name: "rollback", Args: "[n] [confirm]", Description: "list this session's file checkpoints, show what undoing turn n's file changes does, then do it", Where: CLI, Category: CatSession},
		{Name: "stop", Description: "stop the running turn", Where: Chat, Category: CatSession},
		{Name: "model", Args: "[number|name]", Description: "show the models, or switch this session to another", Where: Both, Category: CatModel},
		{Name: "agent", Args: "[name|default]", Description: "show the role agent, or bind this chat to another (a new session)", Where: Chat, Category: CatModel},
		{Name: "tools", Description: "the tools this session is offered", Where: CLI, Category: CatModel},
		{Name: "reload-mcp", Description: "reconnect the MCP servers after editing mcp_servers", Where: CLI, Category: CatModel},
		{Name: "approve", Args: "[session|always]", Description: "allow the command waiting for approval", Where: Chat, Category: CatApproval},
		{Name: "deny", Description: "refuse the command waiting for approval", Where: Chat, Category: CatApproval},
		{Name: "yolo", Description: "run dangerous commands without asking in this chat (again: ask again)", Where: CLI, Category: CatApproval},
		{Name: "memory", Description: "what hermes remembers: MEMORY.md and USER.md", Where: CLI, Category: CatKnowledge},
		{Name: "skills", Description: "list the skills, which run as /<name> [instruction]", Where: Both, Category: CatKnowledge},
		{Name: "whoami", Description: "your id on this platform and whether you are allowed", Where: Chat, Category: CatOther},
		{Name: "logs", Args: "[n]", Description: "the last n lines of hermes's log (default 20)", Where: CLI, Category: CatOther},
		{Name: "help", Aliases: []string{"start"}, Description: "list the commands", Where: Both, Category: CatOther},
		{Name: "exit", Aliases: []string{"quit"}, Description: "quit", Where: CLI, Category: CatOther},
	}
}

// Registry finds commands: hermes's own, and one per skill.
type Registry struct {
	// Skills returns the names and descriptions of the skills, for
	// /<skill-name>; nil means none.
	Skills func() []Command
}

// Commands returns every command front takes, hermes's own first (in
// help order), then the skills by name. A skill named like a command of
// hermes is left out: the command wins.
func (r Registry) Commands(front Front) []Command {
	var out []Command
	taken := map[string]bool{}
	for _, c := range builtins() {
		if c.Where&front == 0 {
			continue
		}
		out = append(out, c)
		taken[c.Name] = true
		for _, a := range c.Aliases {
			taken[a] = true
		}
	}
	if r.Skills == nil {
		return out
	}
	skills := r.Skills()
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	for _, s := range skills {
		name := strings.ToLower(s.Name)
		if taken[name] {
			continue
		}
		s.Name, s.Skill, s.Where, s.Category = name, true, Both, CatSkills
		if s.Args == "" {
			s.Args = "[instruction]"
		}
		out = append(out, s)
		taken[name] = true
	}
	return out
}

// Parse splits a message that is a slash command into the command's name
// (lower case, without the slash and without a "@botname" suffix, which
// Telegram adds in groups) and its arguments. ok is false for anything
// else, including "/" alone and paths such as "/etc/hosts".
func Parse(text string) (name, args string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	head, rest, _ := strings.Cut(text[1:], " ")
	if i := strings.IndexAny(head, "\n\t"); i >= 0 {
		head, rest = head[:i], head[i+1:]+" "+rest
	}
	head, _, _ = strings.Cut(head, "@")
	if head == "" || strings.ContainsAny(head, "/.") {
		return "", "", false
	}
	return strings.ToLower(head), strings.TrimSpace(rest), true
}

// Lookup finds the command named name (or one of its aliases) that front
// takes. The error says what was typed and where the list is.
func (r Registry) Lookup(front Front, name string) (Command, error) {
	name = strings.ToLower(name)
	for _, c := range r.Commands(front) {
		if c.Name == name {
			return c, nil
		}
		for _, a := range c.Aliases {
			if a == name {
				return c, nil
			}
		}
	}
	return Command{}, fmt.Errorf("/%s is not a command or a skill here; /help lists them", name)
}

// Help lists the commands front takes, grouped under their categories.
// In the terminal the descriptions line up in a column; chat platforms
// draw text in proportional fonts, so there a dash separates them.
func (r Registry) Help(front Front) string {
	cmds := r.Commands(front)
	width := 0
	for _, c := range cmds {
		width = max(width, len([]rune(c.Usage())))
	}
	var b strings.Builder
	for _, cat := range categories {
		first := true
		for _, c := range cmds {
			if c.Category != cat {
				continue
			}
			if first {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString(cat + "\n")
				first = false
			}
			if front == CLI {
				fmt.Fprintf(&b, "  %-*s  %s\n", width, c.Usage(), c.Description)
			} else {
				fmt.Fprintf(&b, "%s — %s\n", c.Usage(), c.Description)
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
