package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loadYAML loads config.yaml text from a fresh home.
func loadYAML(t *testing.T, yaml string) (*Loaded, string, error) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Load(LoadOptions{Home: home, Env: MapLookup(nil)})
	return l, home, err
}

// TestAgentsLoad reads agents with every field and resolves their paths.
func TestAgentsLoad(t *testing.T) {
	l, home, err := loadYAML(t, `agents:
  analyst:
    description: reads numbers
    soul: souls/analyst.md
    toolsets: [file, web]
    model: gpt-4o
    skills: [charts]
    knowledge: [ops, finance.v2]
  writer:
    system_prompt: You write reports.
    memory: /srv/writer-memory
schedules:
  weekly:
    cron: "@weekly"
    prompt: report
    agent: writer
`)
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if got := c.AgentNames(); !slices.Equal(got, []string{"analyst", "writer"}) {
		t.Fatalf("names = %v", got)
	}
	a := c.Agents["analyst"]
	if a.Description != "reads numbers" || a.Model != "gpt-4o" || !slices.Equal(a.Toolsets, []string{"file", "web"}) || !slices.Equal(a.Skills, []string{"charts"}) {
		t.Fatalf("analyst = %+v", a)
	}
	if !slices.Equal(a.Knowledge, []string{"ops", "finance.v2"}) || c.Agents["writer"].Knowledge != nil {
		t.Fatalf("knowledge = %q, writer's %q", a.Knowledge, c.Agents["writer"].Knowledge)
	}
	if p, err := a.SoulPath(home); err != nil || p != filepath.Join(home, "souls/analyst.md") {
		t.Fatalf("soul path = %q, %v", p, err)
	}
	if d, err := a.MemoryDir(home, "analyst"); err != nil || d != filepath.Join(home, "agents", "analyst") {
		t.Fatalf("memory dir = %q, %v", d, err)
	}
	if d, err := c.Agents["writer"].MemoryDir(home, "writer"); err != nil || d != "/srv/writer-memory" {
		t.Fatalf("operator's absolute memory dir = %q, %v", d, err)
	}
	if c.Schedules["weekly"].Agent != "writer" {
		t.Fatalf("schedule agent = %q", c.Schedules["weekly"].Agent)
	}
}

// TestAgentsRejected covers the names and paths an agent cannot have;
// each error names the key, the value and what is accepted.
func TestAgentsRejected(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"agents:\n  Bad Name:\n    description: x\n", `agents: "Bad Name" is not accepted as an agent name; use up to 64 lowercase letters`},
		{"agents:\n  ../up:\n    description: x\n", `agents: "../up" is not accepted as an agent name`},
		{"agents:\n  a:\n    soul: ../../etc/passwd\n", `agents.a.soul: "../../etc/passwd" is not accepted: it leaves HERMES_HOME`},
		{"agents:\n  a:\n    soul: souls/../../x.md\n", `agents.a.soul: "souls/../../x.md" is not accepted: it leaves HERMES_HOME`},
		{"agents:\n  a:\n    memory: ..\n", `agents.a.memory: ".." is not accepted: it leaves HERMES_HOME`},
		{"agents:\n  a:\n    memory: agents/../../b\n", `agents.a.memory: "agents/../../b" is not accepted`},
		{"agents:\n  a:\n    soul: s.md\n    system_prompt: hi\n", `agents.a.soul: "s.md" is not accepted beside system_prompt`},
		{"agents:\n  a:\n    skills: [\"\"]\n", `agents.a.skills[0]: "" is not accepted; name a skill`},
		{"agents:\n  a:\n    knowledge: [ops, \"../hr\"]\n", `agents.a.knowledge[1]: "../hr" is not accepted as a knowledge base name; use 1–64 letters`},
		{"agents:\n  a:\n    knowledge: [\"hr ops\"]\n", `agents.a.knowledge[0]: "hr ops" is not accepted as a knowledge base name`},
		{"agents:\n  a:\n    knowledge: [\"\"]\n", `agents.a.knowledge[0]: "" is not accepted as a knowledge base name`},
		{"agents:\n  a:\n    knowledge: []\n", `agents.a.knowledge: "[]" is not accepted; name the knowledge bases it may search, leave knowledge out for all of them, or leave the knowledge toolset out of toolsets for none`},
		{"agents:\n  a:\n    model: \"gpt 4; rm\"\n", `agents.a.model: "gpt 4; rm" is not accepted as a model name`},
		{"agents:\n  a: {}\nschedules:\n  j:\n    cron: \"@daily\"\n    prompt: x\n    agent: b\n", `schedules.j.agent: "b" is not accepted; use one of a`},
		{"schedules:\n  j:\n    cron: \"@daily\"\n    prompt: x\n    agent: b\n", `schedules.j.agent: "b" is not accepted; no agents are configured`},
	} {
		_, _, err := loadYAML(t, tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
