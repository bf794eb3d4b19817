package engine

import (
	"context"
	"log/slog"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/prompt"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/skill"
)

// PromptSources are what a session's system prompt is built from.
type PromptSources struct {
	// Home is $HERMES_HOME, where SOUL.md is read.
	Home string
	// UserHome bounds the search for project context files outside a git
	// repository.
	UserHome string
	// Memory is MEMORY.md and USER.md, frozen into the prompt when a
	// session starts; nil leaves memory out.
	Memory *memory.Store
	// Skills is the skills library whose index the prompt lists; nil
	// leaves the index out.
	Skills *skill.Library
	// IndexFullLimit is the number of skills up to which the index shows
	// every description (skills.index_full_limit).
	IndexFullLimit int
	// Location is the zone the prompt's date is given in; nil means
	// local time.
	Location *time.Location
}

// SystemPrompt assembles the prompt a session started in workdir gets
// when offered box: SOUL.md, guidance and the skills index; the project's
// context files; the memory snapshot and the date. The engine builds it
// once per session and records it, so it stays byte-identical for the
// session; hermes prompt show prints it.
func (e *Engine) SystemPrompt(workdir string, box *Toolbox) prompt.Prompt {
	return e.agentPrompt(workdir, box, nil)
}

// agentPrompt is SystemPrompt for a session of agent a: a's identity in
// place of SOUL.md, a's memory and a's skills; nil is no agent.
func (e *Engine) agentPrompt(workdir string, box *Toolbox, a *Agent) prompt.Prompt {
	src := e.opt.Prompt
	now := e.opt.Clock.Now()
	if src.Location != nil {
		now = now.In(src.Location)
	}
	o := prompt.Options{
		HermesHome:    src.Home,
		Workdir:       workdir,
		UserHome:      src.UserHome,
		Now:           now,
		Location:      now.Location(),
		Logger:        e.opt.Logger,
		MemoryTool:    box.Offers("memory"),
		KnowledgeTool: box.Offers("kb_search"),
	}
	mem, avail := src.Memory, Availability(box)
	if a != nil {
		if a.Soul != "" {
			o.Identity, o.HermesHome = a.Soul, ""
		}
		if a.Memory != nil {
			mem = a.Memory
		}
		avail.Only = a.Skills
	}
	if src.Skills != nil && box.Offers("skill_view") {
		o.SkillsIndex = src.Skills.Index(avail, src.IndexFullLimit)
	}
	if mem != nil {
		if snap, err := mem.Snapshot(); err != nil {
			e.opt.Logger.Warn("memory not read; the session starts without it", "error", err)
		} else {
			o.Memory = snap.Render()
		}
	}
	return prompt.Assemble(o)
}

// Availability is what the skills index filters skills by: the toolsets
// and tools box offers the model.
func Availability(box *Toolbox) skill.Availability {
	var a skill.Availability
	seen := map[string]bool{}
	for _, info := range box.Registry.Infos() {
		if !info.Available || !info.Selected {
			continue
		}
		a.Tools = append(a.Tools, info.Name)
		if !seen[info.Toolset] {
			seen[info.Toolset] = true
			a.Toolsets = append(a.Toolsets, info.Toolset)
		}
	}
	return a
}

// systemPrompt returns the session's prompt: the one recorded for it when
// it started (by this process or another), else a new one, which is
// recorded. A session keeps its prompt for life, so the provider's prefix
// cache keeps hitting and memory written during the session shows only in
// the next one. The first time this process sees a session with a
// history, the tools that keep per-session state get it back.
func (e *Engine) systemPrompt(ctx context.Context, s *session.Session, history []llm.Message, box *Toolbox) string {
	e.mu.Lock()
	p, ok := e.prompts[s.ID]
	e.mu.Unlock()
	if ok {
		return p
	}
	p, err := e.opt.Store.SystemPrompt(ctx, s.ID)
	if err != nil {
		e.opt.Logger.Warn("reading the session's system prompt", slog.String("session_id", s.ID), slog.String("error", err.Error()))
	}
	if p == "" {
		p = e.agentPrompt(s.Cwd, box, persona(e.opt.Agents[s.Agent], e.opt.Users[s.User])).Text()
		if err := e.opt.Store.SetSystemPrompt(ctx, s.ID, p); err != nil {
			e.opt.Logger.Warn("recording the session's system prompt", slog.String("session_id", s.ID), slog.String("error", err.Error()))
		}
	}
	e.resume(s.ID, history, box)
	e.mu.Lock()
	if len(e.prompts) >= maxPrompts {
		clear(e.prompts)
	}
	p = box.shared(p)
	e.prompts[s.ID] = p
	e.mu.Unlock()
	return p
}

// shared returns the text of the prompt last cached with b when it equals
// p, and otherwise keeps p as that prompt. Sessions started alike (a
// gateway's chats, the same day, the same memory) get equal prompts of a
// few kilobytes each; sharing one text keeps the cache of a thousand of
// them at the size of one. Engine.mu is held.
func (b *Toolbox) shared(p string) string {
	if b == nil {
		return p
	}
	if b.prompt == p {
		return b.prompt
	}
	b.prompt = p
	return p
}
