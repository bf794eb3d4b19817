package main

import (
	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/logfile"
)

func newLogsCmd(a *cli) *cobra.Command {
	var n string
	var follow bool
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Show the last lines of hermes's log file",
		Long: `Show the last lines of $HERMES_HOME/logs/hermes.log, where an interactive
chat writes its log (so it never lands on the prompt; --debug keeps it on
stderr). The file is rotated at 5 MB; hermes.log.1 to .4 are the older
ones. Secrets are replaced and control characters escaped.`,
		Example: `  hermes logs
  hermes logs -n 100
  hermes logs -f`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			count, err := logLines("-n", n)
			if err != nil {
				return err
			}
			h, err := a.open(cmd, app.Options{})
			if err != nil {
				return err
			}
			defer h.Close()
			path, r := logfile.Path(h.Config.Paths.Home), h.Redactor()
			end, err := printLog(cmd.OutOrStdout(), path, count, r)
			if err != nil || !follow {
				return err
			}
			return followLog(cmd.Context(), cmd.OutOrStdout(), path, end, r)
		},
	}
	cmd.Flags().StringVarP(&n, "lines", "n", "", "show the last `N` lines (default 20)")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing lines as they are written, until Ctrl-C")
	return cmd
}
