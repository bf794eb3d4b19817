package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/engine"
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

// checkDeliver is the cronjob tool's check of a job's delivery targets:
// in a turn of the API, whoever holds a key (or a prompt injection the
// model follows) must not send a job's results to an address of their
// choosing, so the rule of /v1/jobs applies. A chat or terminal turn
// has its person behind it, and a webhook route has the cron toolset
// only when the operator gives it one.
func (a *App) checkDeliver(source string, targets []string) error {
	if source != apiSource {
		return nil
	}
	allowed := configTargets(a.Config.Config)
	for _, t := range targets {
		if !api.DeliverAllowed(t, allowed) {
			return fmt.Errorf("%q is not accepted in a turn of the API: a job made there delivers only to local or to a target a job of config.yaml delivers to; tell the user to add other targets on the machine with hermes cron edit --deliver", t)
		}
	}
	return nil
}
