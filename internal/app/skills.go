package app

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/skill"
	"github.com/hermes-go/hermes/internal/tool"
)

// OpenSkills opens the skills library of the home, installing the bundled
// skills on first use (never over ones the user edited).
func OpenSkills(l *config.Loaded, log *slog.Logger) *skill.Library {
	dir := ""
	if !l.Paths.InMemory() {
		dir = filepath.Join(l.Paths.Home, "skills")
		if _, err := skill.InstallBundled(dir); err != nil {
			log.Warn("bundled skills not installed", "error", err)
		}
	}
	// Every turn's system prompt lists the skills: a serve answering many
	// requests a second walks the directories at most once a second.
	return skill.Open(skill.Options{Dir: dir, ExternalDirs: l.Config.Skills.ExternalDirs, Logger: log, Recheck: skillsRecheck})
}

// skillsRecheck is how long a look at the skill directories is trusted.
const skillsRecheck = time.Second

// skillTools are the skill tools, with skills_search offered only while the
// index in the prompt is collapsed to names: with fewer skills the index
// already shows every description.
func skillTools(lib *skill.Library, fullLimit int) []tool.Tool {
	tools := skill.Tools(lib)
	for i, t := range tools {
		if t.Spec().Name == "skills_search" {
			tools[i] = collapsedOnly{Tool: t, lib: lib, limit: fullLimit}
		}
	}
	return tools
}

// collapsedOnly makes a tool available only when the skills index is
// collapsed.
type collapsedOnly struct {
	tool.Tool
	lib   *skill.Library
	limit int
}

func (c collapsedOnly) Available() error {
	if c.lib.Collapsed(skill.Availability{}, c.limit) {
		return nil
	}
	return errors.New(fmt.Sprint("the skills index lists every description (skills.index_full_limit is ", c.limit, "); search is offered beyond that"))
}
