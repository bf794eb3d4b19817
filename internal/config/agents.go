package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// RoleAgent is one entry of agents: a named identity a turn can run as,
// with its own prompt, tools, model, memory and skills. Turns started
// with --agent, a job's agent: or a chat bound to it use these instead of
// the defaults; whatever is left empty stays the default.
type RoleAgent struct {
	// Description says in one line what the agent is for (hermes agents
	// list).
	Description string `yaml:"description"`
	// SystemPrompt is the agent's identity, in place of SOUL.md. Soul is
	// a file holding it instead: relative to HERMES_HOME, and inside it;
	// an absolute path is the operator's choice and is read as given.
	SystemPrompt string `yaml:"system_prompt"`
	Soul         string `yaml:"soul"`
	// Toolsets replace the configured toolsets for the agent's turns;
	// toolsets disabled in agent.disabled_toolsets stay off.
	Toolsets []string `yaml:"toolsets"`
	// Model is the model the agent's turns call instead of the main one.
	Model string `yaml:"model"`
	// Memory is the folder of the agent's MEMORY.md and USER.md; empty
	// means agents/NAME under HERMES_HOME. Relative paths are relative to
	// HERMES_HOME and must stay inside it.
	Memory string `yaml:"memory"`
	// Skills are the skills the agent's prompt lists; empty means all.
	Skills []string `yaml:"skills"`
	// Knowledge names the knowledge bases the agent's kb_search may
	// search, so an agent for one team does not read another's documents.
	// Left out, the agent searches every knowledge base. An agent that
	// should search none leaves the knowledge toolset out of toolsets; an
	// empty list is refused rather than read as either.
	Knowledge []string `yaml:"knowledge"`
}

// agentName is what an agent may be called: it names a folder and is
// typed after --agent.
var agentName = lazy.Regexp{Expr: `^[a-z0-9][a-z0-9_-]{0,63}$`}

// modelName is what an agent's model may be called: a provider's model
// id ("gpt-4o-mini", "anthropic/claude-sonnet-4", "qwen2.5:7b").
var modelName = lazy.Regexp{Expr: `^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$`}

// AgentNames returns the configured agents' names, sorted.
func (c *Config) AgentNames() []string { return slices.Sorted(maps.Keys(c.Agents)) }

// SoulPath returns the file of the agent's soul: relative paths are
// joined to home and must not leave it; absolute paths are returned as
// they are. It is "" when the agent has no soul file.
func (a RoleAgent) SoulPath(home string) (string, error) {
	return insideHome(home, a.Soul)
}

// MemoryDir returns the folder of agent name's MEMORY.md and
// USER.md (see RoleAgent.Memory).
func (a RoleAgent) MemoryDir(home, name string) (string, error) {
	if a.Memory == "" {
		return filepath.Join(home, "agents", name), nil
	}
	return insideHome(home, a.Memory)
}

// insideHome resolves p against home; a relative p that climbs out of
// home is an error.
func insideHome(home, p string) (string, error) {
	if p == "" || filepath.IsAbs(p) {
		return p, nil
	}
	full := filepath.Join(home, p)
	rel, err := filepath.Rel(home, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%q leaves HERMES_HOME; use a path inside it, or an absolute path", p)
	}
	return full, nil
}

// validateAgents checks each agent's name and paths.
func validateAgents(c *Config, where func(key string) string) []error {
	var errs []error
	for _, name := range c.AgentNames() {
		a, key := c.Agents[name], "agents."+name
		if !agentName.Get().MatchString(name) {
			errs = append(errs, badValue(where("agents"), "agents", name,
				"is not accepted as an agent name; use up to 64 lowercase letters, digits, \"-\" and \"_\", starting with a letter or digit"))
			continue
		}
		if a.SystemPrompt != "" && a.Soul != "" {
			errs = append(errs, badValue(where(key+".soul"), key+".soul", a.Soul,
				"is not accepted beside system_prompt; give the agent's identity once, inline or as a file"))
		}
		if _, err := insideHome("/home", a.Soul); err != nil {
			errs = append(errs, badValue(where(key+".soul"), key+".soul", a.Soul,
				"is not accepted: it leaves HERMES_HOME; use a file inside it, or an absolute path"))
		}
		if _, err := insideHome("/home", a.Memory); err != nil {
			errs = append(errs, badValue(where(key+".memory"), key+".memory", a.Memory,
				"is not accepted: it leaves HERMES_HOME; use a folder inside it, or an absolute path"))
		}
		if a.Model != "" && !modelName.Get().MatchString(a.Model) {
			errs = append(errs, badValue(where(key+".model"), key+".model", a.Model,
				"is not accepted as a model name; give a provider's model id, like gpt-4o-mini or anthropic/claude-sonnet-4"))
		}
		for i, s := range a.Skills {
			if strings.TrimSpace(s) == "" {
				k := fmt.Sprintf("%s.skills[%d]", key, i)
				errs = append(errs, badValue(where(k), k, s, "is not accepted; name a skill, or leave skills out for all"))
			}
		}
		errs = append(errs, validateKnowledge(a.Knowledge, key+".knowledge", where)...)
	}
	for _, job := range slices.Sorted(maps.Keys(c.Schedules)) {
		name, key := c.Schedules[job].Agent, "schedules."+job+".agent"
		if _, ok := c.Agents[name]; name != "" && !ok {
			errs = append(errs, badValue(where(key), key, name, "is not accepted; "+agentList(c)))
		}
	}
	return errs
}

// validateKnowledge checks an agent's knowledge: each entry names a
// knowledge base, and the list is not empty, since an empty list would
// read as "every knowledge base" to hermes and as "none" to a person.
func validateKnowledge(names []string, key string, where func(key string) string) []error {
	if names != nil && len(names) == 0 {
		return []error{badValue(where(key), key, "[]",
			"is not accepted; name the knowledge bases it may search, leave knowledge out for all of them, or leave the knowledge toolset out of toolsets for none")}
	}
	var errs []error
	for i, n := range names {
		if !KBName(n) {
			k := fmt.Sprintf("%s[%d]", key, i)
			errs = append(errs, badValue(where(k), k, n,
				"is not accepted as a knowledge base name; use 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit, as hermes kb list shows them"))
		}
	}
	return errs
}

// agentList says which agents there are to choose from.
func agentList(c *Config) string {
	if len(c.Agents) == 0 {
		return "no agents are configured; define it under agents:"
	}
	return "use one of " + strings.Join(c.AgentNames(), ", ")
}
