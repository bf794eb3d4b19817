package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// Agent is a role agent resolved for the engine: what a turn that runs as
// it uses instead of the defaults. Fronts name it (Input.Agent); the
// session records the name, so a continued session runs as the same
// agent.
type Agent struct {
	// Name is the agent's name in config.yaml.
	Name string
	// Description says in one line what the agent is for; a team's
	// coordinator reads it to choose who does what.
	Description string
	// Soul is the agent's identity, in place of SOUL.md; empty keeps
	// SOUL.md.
	Soul string
	// Toolsets are the agent's selection; empty keeps the default one.
	// Globally disabled toolsets stay off whatever it names.
	Toolsets []string
	// Model is the model the agent's turns call; empty keeps the main one.
	Model string
	// Memory is the agent's own MEMORY.md and USER.md: the prompt's
	// snapshot is read from it and its memory tool writes to it, so no
	// agent reads or writes another's. Nil uses the shared memory.
	Memory *memory.Store
	// Skills limits the skills index to these names; empty lists all.
	Skills []string

	// origin, when set, names where the toolsets of a turn's persona
	// (see persona) come from, for errors: a user's, not an agent's.
	origin string
	// Tools replace hermes's tools of the same names in the agent's
	// turns, such as a kb_search limited to the agent's knowledge bases.
	// They replace only what the agent's toolsets select: a tool the
	// selection leaves out stays out.
	Tools []tool.Tool
}

// overrides are the tools that replace hermes's in a's turns: a's
// Tools, and a memory tool writing to a's memory when it has one.
func (a *Agent) overrides() []tool.Tool {
	tools := slices.Clone(a.Tools)
	if a.Memory != nil {
		tools = append(tools, memory.NewTool(a.Memory))
	}
	return tools
}

// Agents returns the configured agents' names, sorted.
func (e *Engine) Agents() []string { return slices.Sorted(maps.Keys(e.opt.Agents)) }

// turnAgent returns the agent a turn runs as and, when the turn continues
// a session, that session: the session's recorded agent, or the one the
// input names for a new session. Naming another agent than the session's
// is an error, as is naming one that is not configured.
func (e *Engine) turnAgent(ctx context.Context, sessionID string, in Input) (*Agent, *session.Session, error) {
	name := in.Agent
	var s *session.Session
	if sessionID != "" && len(e.opt.Agents) > 0 {
		var err error
		if s, err = e.existing(ctx, sessionID); err != nil {
			return nil, nil, err
		}
		switch {
		case name == "":
			name = s.Agent
		case name != s.Agent:
			was := "no agent"
			if s.Agent != "" {
				was = "agent " + s.Agent
			}
			return nil, nil, fmt.Errorf("session %s runs as %s, not %s; start a new session to talk to %s", sessionID, was, name, name)
		}
	}
	if name == "" {
		return nil, s, nil
	}
	a, ok := e.opt.Agents[name]
	if !ok {
		known := "none is configured; define agents under agents: in config.yaml"
		if len(e.opt.Agents) > 0 {
			known = "the configured agents are " + strings.Join(e.Agents(), ", ")
		}
		return nil, nil, fmt.Errorf("agent %q is not configured; %s", name, known)
	}
	return a, s, nil
}

// existing reads the session id, which must exist.
func (e *Engine) existing(ctx context.Context, id string) (*session.Session, error) {
	s, err := e.opt.Store.Get(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return nil, errSessionNotFound(id)
	}
	return s, err
}

// agentInput fills what the input leaves open with the agent's choices.
func agentInput(in Input, a *Agent) Input {
	if a == nil {
		return in
	}
	in.Agent = a.Name
	if len(in.Toolsets) == 0 {
		in.Toolsets = a.Toolsets
	}
	if in.Model == "" {
		in.Model = a.Model
	}
	return in
}

// agentToolbox returns the toolbox of toolsets for agent a: the default
// one when a has no tools of its own, else the same selection with a's
// tools (see Agent.overrides) in place of those of the same names. A tool
// is replaced when the selection holds it, available or not, so a tool
// that becomes available later is a's and never hermes's. It is cached
// per agent until hermes's registry changes (a tool registered, or
// availability refreshed), since it holds a copy of the selection.
func (e *Engine) agentToolbox(toolsets []string, a *Agent) (*Toolbox, error) {
	gen := e.opt.Tools.Registry.Generation()
	box, err := e.Toolbox(toolsets)
	if err != nil && a != nil {
		if a.origin != "" {
			return nil, fmt.Errorf("%s: %w", a.origin, err)
		}
		return nil, fmt.Errorf("agent %s (agents.%s.toolsets in config.yaml): %w", a.Name, a.Name, err)
	}
	if err != nil || a == nil {
		return box, err
	}
	key := "agent " + a.Name + ":" + strings.Join(toolsets, ",")
	e.mu.Lock()
	cached, ok := e.boxes[key]
	e.mu.Unlock()
	if ok && cached.gen == gen {
		return cached, nil
	}
	var own []tool.Tool
	var names []string
	for _, t := range a.overrides() {
		if name := t.Spec().Name; box.selects(name) {
			own, names = append(own, t), append(names, name)
		}
	}
	if len(own) == 0 {
		return box, nil
	}
	reg := tool.NewRegistry()
	if err := reg.Swap(nil, append(box.selected(names...), own...)); err != nil {
		return nil, fmt.Errorf("agent %s's tools: %w", a.Name, err)
	}
	made := e.toolbox(reg)
	made.gen = gen
	return e.keepBox(key, made), nil
}

// factSpace says whose long-term facts session id's lasting facts join:
// its user's own ("user id") when it has a user, else the shared ones
// (""), except for a role agent's session, whose facts are kept nowhere
// (ok false): what a session as one agent learned would otherwise be
// recalled in every other agent's sessions and in hermes's own. An
// agent's turns do not recall shared facts either (see recall); its
// MEMORY.md is its own.
func (e *Engine) factSpace(ctx context.Context, id string) (owner string, ok bool) {
	if len(e.opt.Agents) == 0 && len(e.opt.Users) == 0 {
		return "", true
	}
	s, err := e.opt.Store.Get(ctx, id)
	switch {
	case err != nil:
		return "", false
	case s.User != "":
		return s.User, true
	default:
		return "", s.Agent == ""
	}
}
