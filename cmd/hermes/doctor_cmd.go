package main

import (
	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/doctor"
)

func newDoctorCmd(a *cli) *cobra.Command {
	var asJSON, offline, deliverTest bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the configuration, the model providers, state.db and every tool, and say how to fix each problem",
		Long: `Check this hermes home and print one line per check — ok, warn or fail —
with, under each problem, the command that fixes it: config.yaml (unknown
keys too), the model provider and every fallback (one tiny completion each;
--offline skips the calls), state.db's integrity and size, free disk space,
the permissions of .env and the home, Chromium, the ssh host, each MCP
server, the declared tools files, skills, and every scheduled job's next
fire and delivery targets (--deliver-test sends a test message through
each job's chain). Keys are shown as sk-…3f2a at most.

The exit status is 1 when a check failed; warnings alone exit 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := config.Load(a.loadOptions())
			if l == nil {
				home, herr := config.Home(a.env, a.profile)
				if herr != nil {
					return herr
				}
				l = &config.Loaded{Paths: config.PathsFor(home)}
			}
			checks := app.DoctorChecks(l, err, app.DoctorOptions{
				Offline: offline, DeliverTest: deliverTest, Logger: a.logger(cmd), Version: version,
			})
			rep := doctor.Run(cmd.Context(), checks, app.DoctorRedactor(l))
			if asJSON {
				err = doctor.WriteJSON(cmd.OutOrStdout(), rep)
			} else {
				err = doctor.WriteText(cmd.OutOrStdout(), rep)
			}
			if err != nil {
				return err
			}
			if rep.Failed() {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&asJSON, "json", false, `print {"status", "checks": [{"name", "status", "finding", "fix"}]}`)
	fl.BoolVar(&offline, "offline", false, "do not call the model providers")
	fl.BoolVar(&deliverTest, "deliver-test", false, "send a test message through each scheduled job's delivery chain")
	return cmd
}
