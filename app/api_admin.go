package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/hermes-go/hermes/api"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/engine"
)

// apiAdmin is what the API's /v1/sessions and /v1/jobs endpoints work
// with: the stores the hermes sessions and hermes cron commands use, the
// engine for what needs the runtime (deleting a session no turn is
// running in, running a job now), api.sessions for which sessions a key
// sees, and the redactor every text passes on its way out.
func (a *App) apiAdmin() *api.Admin {
	return &api.Admin{
		Sessions:      a.Sessions,
		AllSources:    a.Config.Config.API.Sessions == config.APISessionsAll,
		DeleteSession: a.apiDeleteSession,
		Jobs:          a.Jobs,
		RunJob:        a.Engine.StartJobNow,
		Deliver:       configTargets(a.Config.Config),
		Redact:        newLiveRedactor(a).Redact,
	}
}

// apiDeleteSession deletes a session through the engine, which refuses
// one a turn is running in, here or in another hermes process.
func (a *App) apiDeleteSession(ctx context.Context, id string) error {
	err := a.Engine.DeleteSession(ctx, id)
	var busy *engine.BusyError
	if errors.As(err, &busy) {
		return &api.Error{Status: http.StatusConflict, Param: "id", Message: fmt.Sprintf("session %s is running a turn; delete it when that turn has ended", id)}
	}
	return err
}

// configTargets are the delivery targets the jobs of config.yaml name:
// the ones an operator chose, which a job made through the API may use
// too.
func configTargets(c config.Config) []string {
	var targets []string
	for _, j := range ConfigJobs(c) {
		for _, t := range j.Deliver {
			if !slices.Contains(targets, t) {
				targets = append(targets, t)
			}
		}
	}
	return targets
}
