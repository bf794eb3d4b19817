// Package curator keeps the skills the agent wrote tidy, as Hermes
// Agent's curator does: a skill unused for a while is marked stale (it
// stays usable, and a use clears the mark), one unused for longer is moved
// to skills/.archive, and, when asked, the model finds near-duplicates and
// each group is merged into one skill. Nothing is ever deleted but what
// has been in the archive past its time to live (when one is set); every
// move is undone by skill.Library.Restore.
//
// Only skills the agent wrote are curated (skill.OriginAgent in their
// usage record): skills installed with hermes skills install or written by
// hand are the user's, and bundled skills are the release's unless
// PruneBuiltins says otherwise. Skills a scheduled job loads are
// protected, since retiring one would break the job.
package curator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/skill"
)

// Options configure one run.
type Options struct {
	// Library is the skills library; required.
	Library *skill.Library
	// StaleAfter and ArchiveAfter are how long unused a skill is marked
	// stale and archived; ArchiveTTL, when positive, is how long an
	// archived skill is kept.
	StaleAfter, ArchiveAfter, ArchiveTTL time.Duration
	// PruneBuiltins curates the bundled skills too.
	PruneBuiltins bool
	// Consolidate asks Model for merges of near-duplicate skills.
	Consolidate bool
	// Model answers the consolidation; without a provider, consolidation
	// is reported as not done.
	Model Model
	// Protected are skills never curated, with why ("loaded by job
	// nightly-report").
	Protected map[string]string
	// DryRun computes and reports everything, the model's merges
	// included, and changes no file.
	DryRun bool
	// Clock is the time; nil is the wall clock.
	Clock clock.Clock
	// Logger gets a line per change; nil discards them.
	Logger *slog.Logger
}

// Model is the provider and model name consolidation calls.
type Model struct {
	Provider llm.Provider
	Name     string
}

// candidate is a curated skill with its record.
type candidate struct {
	sk    *skill.Skill
	usage skill.Usage
	idle  time.Duration
}

// Run curates the library once and reports what it did, or, in a dry
// run, what it would do. A problem with one skill is reported and the
// rest go on; the error is for a run that could not start.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Library == nil {
		return nil, errors.New("curator: no skills library")
	}
	if o.Library.Dir() == "" {
		return nil, errors.New("curator: the skills library has no directory")
	}
	o.Clock = clock.OrReal(o.Clock)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	lib := o.Library
	now := o.Clock.Now().UTC()
	rep := &Report{At: now, DryRun: o.DryRun}
	if !o.DryRun {
		unlock, err := lib.LockCurator()
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	recs, err := lib.Usage()
	if err != nil {
		return nil, err
	}
	bundled, err := lib.BundledNames()
	if err != nil {
		return nil, err
	}
	var active []candidate
	var seed []string
	for _, sk := range lib.Skills() {
		u, known := recs[sk.Name]
		switch {
		case sk.External:
			continue
		case bundled[sk.Name] && !o.PruneBuiltins:
			rep.LeftAlone.Bundled++
			continue
		case bundled[sk.Name] && !known:
			// First sight of a bundled skill under prune_builtins: its
			// clock starts now, not at its install.
			seed = append(seed, sk.Name)
			continue
		case !bundled[sk.Name] && u.CreatedBy != skill.OriginAgent:
			rep.LeftAlone.User++
			continue
		}
		if why, ok := o.Protected[sk.Name]; ok {
			rep.Protected = append(rep.Protected, Item{Name: sk.Name, Why: why})
			continue
		}
		last := u.LastActivity()
		if last.IsZero() {
			if fi, err := os.Stat(sk.Path); err == nil {
				last = fi.ModTime()
			}
		}
		c := candidate{sk: sk, usage: u, idle: max(now.Sub(last), 0)}
		switch {
		case c.idle >= o.ArchiveAfter:
			rep.Archived = append(rep.Archived, Item{Name: sk.Name, Idle: c.idle, Why: "unused " + days(c.idle)})
		case c.idle >= o.StaleAfter && !u.Stale():
			rep.Stale = append(rep.Stale, Item{Name: sk.Name, Idle: c.idle, Why: "unused " + days(c.idle)})
			active = append(active, c)
		case c.idle < o.StaleAfter && u.Stale():
			rep.Reactivated = append(rep.Reactivated, sk.Name)
			active = append(active, c)
		default:
			if u.Stale() {
				rep.StillStale++
			}
			active = append(active, c)
		}
	}
	if !o.DryRun {
		o.apply(rep, seed, now)
	}
	if o.Consolidate {
		consolidate(ctx, o, rep, active)
	} else {
		rep.Consolidation = "off (curator.consolidate: false)"
	}
	if o.ArchiveTTL > 0 {
		gone, err := lib.ExpireArchive(now.Add(-o.ArchiveTTL), o.DryRun)
		for _, a := range gone {
			rep.Expired = append(rep.Expired, Item{Name: a.Name, Why: fmt.Sprintf("archived %s ago", days(now.Sub(a.At)))})
		}
		if err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("expiring the archive: %v", err))
		}
	}
	sort.Slice(rep.Protected, func(i, j int) bool { return rep.Protected[i].Name < rep.Protected[j].Name })
	return rep, nil
}

// apply marks, clears and seeds the usage records and archives what the
// report says, noting failures in it.
func (o Options) apply(rep *Report, seed []string, now time.Time) {
	lib := o.Library
	var err error
	if len(rep.Stale)+len(rep.Reactivated)+len(seed) > 0 {
		err = lib.UpdateUsage(func(recs map[string]skill.Usage) error {
			for _, it := range rep.Stale {
				u := recs[it.Name]
				u.StaleSince = now
				recs[it.Name] = u
			}
			for _, name := range rep.Reactivated {
				u := recs[name]
				u.StaleSince = time.Time{}
				recs[name] = u
			}
			for _, name := range seed {
				if _, ok := recs[name]; !ok {
					recs[name] = skill.Usage{CreatedAt: now}
				}
			}
			return nil
		})
	}
	if err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("marking stale skills: %v", err))
	}
	for _, it := range rep.Stale {
		o.Logger.Info("skill marked stale", "skill", it.Name, "idle_days", int(it.Idle.Hours()/24))
	}
	kept := rep.Archived[:0]
	for _, it := range rep.Archived {
		if _, err := lib.Archive(it.Name, skill.ReasonUnused); err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("archiving %s: %v", it.Name, err))
			continue
		}
		o.Logger.Info("skill archived", "skill", it.Name, "idle_days", int(it.Idle.Hours()/24))
		kept = append(kept, it)
	}
	rep.Archived = kept
}

// days renders d in whole days.
func days(d time.Duration) string {
	n := int(d.Hours() / 24)
	if n == 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", n)
}
