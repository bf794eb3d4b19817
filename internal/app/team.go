package app

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/engine"
)

// teams are config's teams for the engine, with their defaults filled.
func (a *App) teams() map[string]engine.Team {
	c := a.Config.Config
	if len(c.Teams) == 0 {
		return nil
	}
	out := make(map[string]engine.Team, len(c.Teams))
	for name, t := range c.Teams {
		out[name] = engineTeam(name, t)
	}
	return out
}

// engineTeam is config team t, called name, as the engine runs it.
func engineTeam(name string, t config.Team) engine.Team {
	t = t.WithDefaults()
	return engine.Team{Name: name, Description: t.Description, Coordinator: t.Coordinator, Roles: t.Roles,
		Workers: t.Workers, Lease: t.Lease, MaxAttempts: t.MaxAttempts, MaxTurns: t.MaxTurns, Timeout: t.Timeout,
		Goal: t.Goal, Deliver: t.Deliver}
}

// TeamNamed returns the team hermes team run names: a team of config.yaml, or
// a YAML file holding one (a name with a path separator or ending in
// .yaml or .yml), checked against the configured agents.
func (a *App) TeamNamed(name string) (engine.Team, error) {
	c := a.Config.Config
	if strings.ContainsRune(name, filepath.Separator) || strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
		n, t, err := config.LoadTeamFile(name, &c)
		if err != nil {
			return engine.Team{}, err
		}
		return engineTeam(n, t), nil
	}
	t, ok := c.Teams[name]
	if !ok {
		known := "none is configured; define one under teams: in config.yaml, or give a team file"
		if len(c.Teams) > 0 {
			known = "the configured teams are " + strings.Join(c.TeamNames(), ", ")
		}
		return engine.Team{}, fmt.Errorf("team %q is not configured; %s", name, known)
	}
	return engineTeam(name, t), nil
}
