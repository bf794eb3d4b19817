package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/migrate/hermesagent"
)

// HermesAgentReport is what hermes migrate hermes-agent did, part by part.
type HermesAgentReport struct {
	Sessions hermesagent.SessionReport
	Jobs     hermesagent.JobReport
	Pairings hermesagent.PairingReport
	Files    hermesagent.FileReport
}

// MigrateHermesAgent imports the Hermes Agent home from (the hermes home
// itself when empty) into this home: the sessions and messages of its
// state.db, its cron jobs, the users it paired on each platform, and its
// persona, memories, skills and .env where this home has none. Hermes's
// files are read, never written; run again, it imports nothing twice,
// and finishes an import that was cut off. With dryRun nothing is
// written, and the report says what would be.
func (a *App) MigrateHermesAgent(ctx context.Context, from string, dryRun bool) (HermesAgentReport, error) {
	var rep HermesAgentReport
	home := a.Config.Paths.Home
	if from == "" {
		from = home
	}
	src := filepath.Join(from, "state.db")
	switch {
	case filepath.Clean(src) == filepath.Clean(a.Config.Paths.StateDB):
		return rep, fmt.Errorf("%s is hermes's own state, not Hermes Agent's: give --from the Hermes Agent home", src)
	case config.PathsFor(from).StateDB != src:
		// A Hermes state.db: hermes keeps its own beside it.
		var err error
		if rep.Sessions, err = hermesagent.ImportSessions(ctx, a.Sessions, src, dryRun); err != nil {
			return rep, fmt.Errorf("sessions: %w", err)
		}
	}
	var err error
	if rep.Jobs, err = hermesagent.ImportJobs(ctx, a.Jobs, filepath.Join(from, "cron", "jobs.json"), clock.OrReal(a.opts.Clock).Now(), dryRun); err != nil {
		return rep, fmt.Errorf("jobs: %w", err)
	}
	if rep.Pairings, err = hermesagent.ImportPairings(ctx, a.Gateway, from, dryRun); err != nil {
		return rep, fmt.Errorf("pairings: %w", err)
	}
	if rep.Files, err = hermesagent.ImportFiles(from, home, dryRun); err != nil {
		return rep, fmt.Errorf("files: %w", err)
	}
	return rep, nil
}
