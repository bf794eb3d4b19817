package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/kb"
	"github.com/hermes-go/hermes/internal/memory"
)

// roleAgents resolves config's agents for the engine: each soul file is
// read now, each agent gets a memory store of its own folder, and one
// given knowledge bases a kb_search that searches only those.
func (a *App) roleAgents() (map[string]*engine.Agent, error) {
	c, home := a.Config.Config, a.Config.Paths.Home
	if len(c.Agents) == 0 {
		return nil, nil
	}
	limits, inMemory := homeMemoryLimits(a.Config), a.Config.Paths.InMemory()
	out := make(map[string]*engine.Agent, len(c.Agents))
	for _, name := range c.AgentNames() {
		ra, key := c.Agents[name], "agents."+name
		ag := &engine.Agent{Name: name, Description: ra.Description, Soul: strings.TrimSpace(ra.SystemPrompt), Toolsets: ra.Toolsets,
			Model: ra.Model, Skills: ra.Skills}
		if ra.Soul != "" && inMemory {
			return nil, fmt.Errorf("%s.soul: %q is a file, and a hermes with no home reads none; give the persona as system_prompt", key, ra.Soul)
		}
		if ra.Soul != "" {
			text, err := readSoul(home, ra.Soul)
			if err != nil {
				return nil, fmt.Errorf("%s.soul: %w", key, err)
			}
			ag.Soul = text
		}
		dir := ""
		if !inMemory {
			var err error
			if dir, err = ra.MemoryDir(home, name); err != nil {
				return nil, fmt.Errorf("%s.memory: %w", key, err)
			}
		}
		ag.Memory = memory.Open(dir, limits)
		if len(ra.Knowledge) > 0 && a.KB != nil {
			ag.Tools = append(ag.Tools, kb.NewTool(a.KB, ra.Knowledge...))
		}
		out[name] = ag
	}
	return out, nil
}

// readSoul reads an agent's soul file. A relative path must stay inside
// home also after its links are followed, so a link placed in
// HERMES_HOME cannot hand the agent a file from elsewhere; an absolute
// path is the operator's and is read as given.
func readSoul(home, p string) (string, error) {
	path := p
	if !filepath.IsAbs(p) {
		path = filepath.Join(home, p)
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", fmt.Errorf("%q cannot be read: %w; give a file inside HERMES_HOME (%s)", p, err, home)
		}
		root, err := filepath.EvalSymlinks(home)
		if err != nil {
			return "", err
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%q leads to %s, outside HERMES_HOME; keep the file inside it, or give its absolute path", p, real)
		}
		path = real
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%q cannot be read: %w", p, err)
	}
	text := strings.TrimSpace(string(b))
	if text == "" {
		return "", fmt.Errorf("%q is empty; write the agent's identity in it, or use system_prompt", p)
	}
	return text, nil
}
