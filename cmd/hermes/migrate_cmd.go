package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newMigrateCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Bring another agent's history into hermes",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newMigrateHermesAgentCmd(a))
	return cmd
}

func newMigrateHermesAgentCmd(a *cli) *cobra.Command {
	var from string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "hermes-agent [--from DIR] [--dry-run]",
		Short: "Import the sessions of a Hermes Agent home",
		Long: `Import the history of a Hermes Agent home (--from, default this hermes
home, which may be the same ~/.hermes) into hermes: every session of its
state.db with its title, model, times, token totals, cost, system prompt
and lineage (compression, branches), and its messages with their tool calls,
tool results and reasoning, indexed for search. Rows a rewind or compaction
retired are left out.

Hermes's files are only read. Run again, it imports nothing twice; cut off
(Ctrl-C, a crash), run again, it finishes. --dry-run says what it would
import and writes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			rep, err := h.MigrateHermesAgent(cmd.Context(), from, dryRun)
			verb := "imported"
			if dryRun {
				verb = "would import"
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "sessions: %s %d (%d messages), skipped %d already here", verb, rep.Sessions, rep.Messages, rep.Skipped)
			if rep.Redone > 0 {
				fmt.Fprintf(out, ", %d half-imported ones again", rep.Redone)
			}
			fmt.Fprintln(out)
			if err != nil {
				return fmt.Errorf("migrate hermes-agent: %w (run it again to go on)", err)
			}
			if s := rep.Took.Seconds(); s > 0 && rep.Messages > 0 && !dryRun {
				fmt.Fprintf(out, "%.0f messages/s\n", float64(rep.Messages)/s)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the Hermes Agent home (default: this hermes home)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be imported, import nothing")
	return cmd
}
