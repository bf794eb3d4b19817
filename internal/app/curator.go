package app

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/skill"
	"github.com/hermes-go/hermes/internal/skill/curator"
)

// CurateOptions change one run of the curator from what config.yaml's
// curator section says.
type CurateOptions struct {
	// DryRun reports what the run would do and changes nothing.
	DryRun bool
	// Consolidate asks the model for merges even when
	// curator.consolidate is false.
	Consolidate bool
}

// Curate runs the skills curator now, as config.yaml's curator section
// says, over this home's skills, and returns its report. A run that is
// not a dry run is recorded, so the schedule of hermes serve counts from
// it. The model, when consolidation is on, is auxiliary.curator's, else
// the main model, called the way the other background jobs call theirs.
func (a *App) Curate(ctx context.Context, o CurateOptions) (*curator.Report, error) {
	c := a.Config.Config.Curator
	lib := a.skillLibrary()
	opts := curator.Options{
		Library:    lib,
		StaleAfter: c.StaleAfter(), ArchiveAfter: c.ArchiveAfter(), ArchiveTTL: c.ArchiveTTL(),
		PruneBuiltins: c.PruneBuiltins,
		Consolidate:   c.Consolidate || o.Consolidate,
		Protected:     a.protectedSkills(ctx),
		DryRun:        o.DryRun,
		Clock:         a.opts.Clock,
		Logger:        a.Log.With("component", "curator"),
	}
	if opts.Consolidate {
		models := a.Models
		if models == nil {
			models = newModels(a.Config, a.opts.Model, a.opts.Clock, a.Log)
		}
		m, err := models.aux("auxiliary.curator", a.Config.Config.Auxiliary.Curator)
		if err != nil {
			return nil, err
		}
		opts.Model = curator.Model{Provider: m.Provider, Name: m.Name}
	}
	start := a.opts.Clock.Now()
	rep, err := curator.Run(ctx, opts)
	if err != nil || o.DryRun {
		return rep, err
	}
	if err := curator.WriteState(curator.StatePath(lib.Dir()), curator.State{LastRun: start, Summary: rep.Summary()}); err != nil {
		a.Log.Warn("curator run not recorded; hermes serve may run it again soon", "error", err)
	}
	return rep, nil
}

// StartCurator runs the curator on its schedule (curator.interval_hours,
// once no turn has started for curator.min_idle_hours) until ctx ends or
// the App closes; with curator.enabled false it does nothing.
func (a *App) StartCurator(ctx context.Context) {
	c := a.Config.Config.Curator
	if !c.Enabled {
		a.Log.Info("skills curator off (curator.enabled: false)")
		return
	}
	lib := a.skillLibrary()
	if lib.Dir() == "" {
		return
	}
	started := a.opts.Clock.Now()
	s := &curator.Schedule{
		Interval: c.Interval(), MinIdle: c.MinIdle(), StatePath: curator.StatePath(lib.Dir()),
		Idle: func(ctx context.Context) (time.Time, bool) { return a.idleSince(ctx, started) },
		Run: func(ctx context.Context) (string, error) {
			rep, err := a.Curate(ctx, CurateOptions{})
			if err != nil {
				return "", err
			}
			return rep.Summary(), nil
		},
		Clock: a.opts.Clock, Logger: a.Log.With("component", "curator"),
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Loop(ctx)
	}()
	a.onClose(func() {
		cancel()
		<-done
	})
}

// idleSince is since when no turn someone waits on has started, and
// whether one runs: by this process's engine, else since serve started,
// and by the turns and sessions of state.db, which other processes (a
// chat) share. Scheduled jobs and delegated children do not count, or a
// frequent job would keep the curator from ever running.
func (a *App) idleSince(ctx context.Context, started time.Time) (time.Time, bool) {
	since, busy := started, false
	if a.Engine != nil {
		since, busy = a.Engine.IdleSince()
	}
	if a.Sessions == nil {
		return since, busy
	}
	if running, err := a.Sessions.Running(ctx, a.opts.Clock.Now()); err == nil {
		for _, r := range running {
			if s, err := a.Sessions.Get(ctx, r.SessionID); err == nil && !engine.Background(s.Source) {
				busy = true
			}
		}
	}
	if recent, err := a.Sessions.List(ctx, session.ListOptions{Limit: 50}); err == nil {
		for _, s := range recent {
			if !engine.Background(s.Source) {
				if s.StartedAt.After(since) {
					since = s.StartedAt
				}
				break
			}
		}
	}
	return since, busy
}

// protectedSkills are the skills the curator leaves alone because
// something names them: a job loads them, or a role agent's prompt lists
// them. Retiring one would break it.
func (a *App) protectedSkills(ctx context.Context) map[string]string {
	out := map[string]string{}
	c := a.Config.Config
	for name, s := range c.Schedules {
		for _, sk := range s.Skills {
			out[sk] = "loaded by job " + name
		}
	}
	if a.Jobs != nil {
		if jobs, err := a.Jobs.List(ctx); err == nil {
			for _, j := range jobs {
				for _, sk := range j.Skills {
					out[sk] = "loaded by job " + j.Name
				}
			}
		} else {
			a.Log.Warn("curator: jobs not read; their skills may be curated", "error", err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		for _, sk := range c.Agents[name].Skills {
			out[sk] = "listed by agent " + name
		}
	}
	return out
}

// skillLibrary is the skills library of the tools, or, in a process that
// opened only the stores, one of its own over the same directory.
func (a *App) skillLibrary() *skill.Library {
	if a.Tools != nil && a.Tools.Skills != nil {
		return a.Tools.Skills
	}
	l := a.Config
	return skill.Open(skill.Options{Dir: filepath.Join(l.Paths.Home, "skills"), ExternalDirs: l.Config.Skills.ExternalDirs,
		Logger: a.Log, Clock: a.opts.Clock})
}

// RestoreSkill brings an archived skill back, or undoes a merge (see
// skill.Library.Restore), and says what it did.
func (a *App) RestoreSkill(name string) (string, error) {
	res, err := a.skillLibrary().Restore(strings.TrimSpace(name))
	if err != nil {
		return "", err
	}
	if res.Undone != nil {
		return fmt.Sprintf("undid the merge into %s (moved to the archive); restored %s", res.Undone.Into, strings.Join(res.Skills, ", ")), nil
	}
	return "restored " + strings.Join(res.Skills, ", "), nil
}

// ArchivedSkills lists the archived skills and the merges that can be
// undone.
func (a *App) ArchivedSkills() ([]skill.Archived, []skill.Merge, error) {
	return a.skillLibrary().Archived()
}
