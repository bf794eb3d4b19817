package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/migrate/hermesagent"
)

// MigrateHermesAgent imports the history of the Hermes Agent home from
// (the hermes home itself when empty) into this home's stores: the
// sessions and messages of its state.db. Hermes's files are read, never
// written; run again, it imports nothing twice, and finishes an import
// that was cut off.
func (a *App) MigrateHermesAgent(ctx context.Context, from string, dryRun bool) (hermesagent.SessionReport, error) {
	if from == "" {
		from = a.Config.Paths.Home
	}
	src := filepath.Join(from, "state.db")
	if filepath.Clean(src) == filepath.Clean(a.Config.Paths.StateDB) {
		return hermesagent.SessionReport{}, fmt.Errorf("%s is hermes's own state, not Hermes Agent's: give --from the Hermes Agent home", src)
	}
	if config.PathsFor(from).StateDB == src {
		// stateFile keeps state.db for a file that is not Hermes's.
		return hermesagent.SessionReport{}, fmt.Errorf("%s is not Hermes Agent's state.db (it is hermes's own, or missing)", src)
	}
	return hermesagent.ImportSessions(ctx, a.Sessions, src, dryRun)
}
