package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newGatewayCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "The chat gateway: check its platforms, or run it",
		Long: `The gateway answers people on chat platforms and takes webhooks; it runs
inside hermes serve (hermes gateway run is the same command).`,
	}
	var asJSON bool
	status := &cobra.Command{
		Use:   "status",
		Short: "Check every configured platform: whether it connects, as whom, and why not",
		Long: `Connect to each platform configured under gateway: as hermes serve would,
without receiving anything, and say who hermes is there and how events
reach it (polling or a webhook, with the last error the platform met
posting to it), or why it cannot connect. Webhook routes are listed with
the address they answer on. It exits 1 when a platform cannot connect.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			st, err := h.GatewayStatus(cmd.Context())
			if err != nil {
				return err
			}
			failed := 0
			for _, s := range st {
				if !s.OK {
					failed++
				}
			}
			if asJSON {
				writeJSON(cmd.OutOrStdout(), st)
			} else {
				w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				if len(st) == 0 {
					fmt.Fprintln(w, "No platform or webhook route is configured: see the README's \"Talking to hermes from Telegram\".")
				}
				for _, s := range st {
					state := "ok"
					if !s.OK {
						state = "FAILED"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\n", s.Platform, state, s.Detail)
				}
				w.Flush()
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d cannot connect", failed, len(st))
			}
			return nil
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	run := newServeCmd(a)
	run.Use, run.Short = "run", "Run the gateway and the scheduler (the same as hermes serve)"
	cmd.AddCommand(status, run)
	return cmd
}
