package main

import (
	"encoding/json"
	"errors"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/team"
)

// newTeamAdoptCmd is the child side of hermes serve's team adoption: it
// goes on with a run whose process stopped, delivers the answer when the
// run ends, and prints how it ended as one JSON line. A run another
// process holds or took first is left alone, and that is no failure.
func newTeamAdoptCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:    "adopt RUN",
		Short:  "Go on with a job's team run whose process stopped (used by hermes serve)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := runID(args[0])
			if err != nil {
				return err
			}
			h, err := openChild(cmd, a)
			if err != nil {
				return err
			}
			defer h.Close()
			run, err := h.Engine.RunTeam(cmd.Context(), engine.TeamRun{Resume: id, Deliver: true})
			out := app.TeamAdoptResult{Run: id, State: string(run.State)}
			switch {
			case errors.Is(err, engine.ErrTeamBusy), errors.Is(err, team.ErrLeaseLost):
				out = app.TeamAdoptResult{Run: id, Skipped: err.Error()}
			case err != nil:
				out.Error = err.Error()
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(out)
		},
	}
}
