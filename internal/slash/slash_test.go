package slash

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, name, args string
		ok             bool
	}{
		{"/new", "new", "", true},
		{"  /NEW  ", "new", "", true},
		{"/model@hermes_bot gpt-4o", "model", "gpt-4o", true},
		{"/compress focus on the deploy", "compress", "focus on the deploy", true},
		{"/approve\nsession", "approve", "session", true},
		{"/", "", "", false},
		{"/ new", "", "", false},
		{"/etc/hosts is broken", "", "", false},
		{"/tmp/x.log", "", "", false},
		{"hello /new", "", "", false},
		{"", "", "", false},
	} {
		name, args, ok := Parse(tt.in)
		if name != tt.name || args != tt.args || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q, %v", tt.in, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
}

func TestLookup(t *testing.T) {
	r := Registry{Skills: func() []Command {
		return []Command{
			{Name: "Deploy", Description: "ship it"},
			{Name: "new", Description: "a skill that would hide /new"},
			{Name: "arxiv", Description: "search papers"},
		}
	}}
	for _, tt := range []struct {
		front Front
		name  string
		want  string // "" for an error
	}{
		{CLI, "new", "new"},
		{Chat, "reset", "new"},
		{Chat, "start", "help"},
		{CLI, "quit", "exit"},
		{CLI, "stop", ""}, // Ctrl-C does that in a terminal
		{Chat, "exit", ""},
		{Chat, "reload-mcp", ""},
		{Chat, "deploy", "deploy"},
		{CLI, "DEPLOY", "deploy"},
		{Chat, "nosuch", ""},
	} {
		c, err := r.Lookup(tt.front, tt.name)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("Lookup(%v, %q) = %+v, want an error", tt.front, tt.name, c)
		case tt.want != "" && (err != nil || c.Name != tt.want):
			t.Errorf("Lookup(%v, %q) = %+v, %v; want %s", tt.front, tt.name, c, err, tt.want)
		}
	}
	if c, _ := r.Lookup(Chat, "new"); c.Skill {
		t.Error("a skill named new hides the command /new")
	}
	if c, _ := r.Lookup(Chat, "deploy"); !c.Skill || c.Usage() != "/deploy [instruction]" {
		t.Errorf("the deploy skill = %+v", c)
	}
	if _, err := r.Lookup(Chat, "nosuch"); err == nil || !strings.Contains(err.Error(), "/nosuch") || !strings.Contains(err.Error(), "/help") {
		t.Errorf("unknown command: %v", err)
	}
}

func TestHelp(t *testing.T) {
	r := Registry{Skills: func() []Command {
		return []Command{{Name: "zeta", Description: "last"}, {Name: "alpha", Description: "first skill"}}
	}}
	lines := strings.Split(r.Help(Chat), "\n")
	if lines[0] != CatSession || lines[1] != "/new — start a new session" {
		t.Errorf("first lines %q", lines[:2])
	}
	if n := len(lines); lines[n-3] != CatSkills || lines[n-2] != "/alpha [instruction] — first skill" || lines[n-1] != "/zeta [instruction] — last" {
		t.Errorf("skills at the end, sorted: %q", lines[n-3:])
	}
	help := r.Help(CLI)
	if strings.Contains(help, "/approve") || !strings.Contains(help, "/exit") || !strings.Contains(help, "/model [number|name]") {
		t.Errorf("the terminal's help:\n%s", help)
	}
	// In the terminal the descriptions start in one column.
	col := -1
	for _, l := range strings.Split(help, "\n") {
		if !strings.HasPrefix(l, "  /") {
			continue
		}
		i := strings.Index(l, "start a new session")
		if j := strings.Index(l, "quit"); i < 0 && j > 0 && strings.HasPrefix(l, "  /exit") {
			i = j
		}
		if i > 0 {
			if col >= 0 && i != col {
				t.Errorf("descriptions do not line up:\n%s", help)
			}
			col = i
		}
	}
	// Every command is in a category /help shows.
	for _, c := range r.Commands(Both) {
		if !strings.Contains(r.Help(Both), c.Usage()) || c.Category == "" {
			t.Errorf("/%s is missing from /help", c.Name)
		}
	}
}
