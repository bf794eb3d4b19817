package main

import (
	"os"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/prompt"
	"github.com/hermes-go/hermes/tool"
)

// sessionPrompt assembles the system prompt a session started in workdir
// gets: SOUL.md, guidance and the skills index; the project's context
// files; the memory snapshot and the date. It is built once per session
// (the engine records it), so it stays byte-identical for the session.
func sessionPrompt(l *config.Loaded, b *builtinTools, offered *tool.Registry, workdir string) prompt.Prompt {
	home, _ := os.UserHomeDir()
	t := now(l)
	o := prompt.Options{
		HermesHome: l.Paths.Home,
		Workdir:    workdir,
		UserHome:   home,
		Now:        t,
		Location:   t.Location(),
		Logger:     b.log,
	}
	b.promptParts(&o, offered, l.Config.Skills.IndexFullLimit)
	return prompt.Assemble(o)
}

// promptParts adds what the tools contribute to the prompt: the skills
// index for the tools offered, the memory snapshot, frozen here for the
// session, and whether the memory tool is there to change it.
func (b *builtinTools) promptParts(o *prompt.Options, offered *tool.Registry, fullLimit int) {
	if offers(offered, "skill_view") {
		o.SkillsIndex = b.skills.Index(skillAvailability(offered), fullLimit)
	}
	if snap, err := b.memory.Snapshot(); err != nil {
		b.log.Warn("memory not read; the session starts without it", "error", err)
	} else {
		o.Memory = snap.Render()
	}
	o.MemoryTool = offers(offered, "memory")
}

// offers reports whether reg offers the model the tool named exactly name.
func offers(reg *tool.Registry, name string) bool {
	for _, s := range reg.Specs() {
		if s.Name == name {
			return true
		}
	}
	return false
}
