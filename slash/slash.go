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
}

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
		{Name: "new", Aliases: []string{"reset"}, Description: "start a new session", Where: Both},
		{Name: "stop", Description: "stop the running turn", Where: Chat},
		{Name: "model", Args: "[name]", Description: "show the model, or switch this chat to another", Where: Chat},
		{Name: "agent", Args: "[name|default]", Description: "show the role agent, or bind this chat to another (a new session)", Where: Chat},
		{Name: "usage", Description: "this session's tokens and estimated cost", Where: Both},
		{Name: "compress", Args: "[focus]", Description: "compress the conversation now", Where: Both},
		{Name: "approve", Args: "[session|always]", Description: "allow the command waiting for approval", Where: Chat},
		{Name: "deny", Description: "refuse the command waiting for approval", Where: Chat},
		{Name: "skills", Description: "list the skills, which run as /<name> [instruction]", Where: Both},
		{Name: "whoami", Description: "your id on this platform and whether you are allowed", Where: Chat},
		{Name: "reload-mcp", Description: "reconnect the MCP servers after editing mcp_servers", Where: CLI},
		{Name: "help", Aliases: []string{"start"}, Description: "list the commands", Where: Both},
		{Name: "exit", Aliases: []string{"quit"}, Description: "quit", Where: CLI},
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
		s.Name, s.Skill, s.Where = name, true, Both
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

// Help lists the commands front takes, one per line.
func (r Registry) Help(front Front) string {
	var b strings.Builder
	for _, c := range r.Commands(front) {
		fmt.Fprintf(&b, "%s — %s\n", c.Usage(), c.Description)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
