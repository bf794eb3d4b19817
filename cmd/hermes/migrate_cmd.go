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
		Short: "Import a Hermes Agent home: sessions, jobs, paired users, persona, memories, skills",
		Long: `Import a Hermes Agent home (--from, default this hermes home, which may be
the same ~/.hermes) into hermes:
  - every session of its state.db with its title, model, times, token
    totals, cost, system prompt and lineage (compression, branches), and
    its messages with their tool calls, tool results and reasoning, indexed
    for search (rows a rewind or compaction retired are left out);
  - its cron jobs (cron/jobs.json): schedule, prompt, skills, model,
    toolsets, delivery and pause; what hermes cannot keep is reported;
  - the users it paired on each platform;
  - SOUL.md, memories/, skills/ and .env from another directory, where this
    home has none (nothing of this home is overwritten).

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
			s := rep.Sessions
			fmt.Fprintf(out, "sessions: %s %d (%d messages), skipped %d already here", verb, s.Sessions, s.Messages, s.Skipped)
			if s.Redone > 0 {
				fmt.Fprintf(out, ", %d half-imported ones again", s.Redone)
			}
			if sec := s.Took.Seconds(); sec > 0 && s.Messages > 0 && !dryRun {
				fmt.Fprintf(out, "; %.0f messages/s", float64(s.Messages)/sec)
			}
			fmt.Fprintln(out)
			fmt.Fprintf(out, "jobs: %s %d, skipped %d already here\n", verb, rep.Jobs.Imported, rep.Jobs.Present)
			for _, n := range rep.Jobs.Notes {
				fmt.Fprintf(out, "  %s\n", n)
			}
			fmt.Fprintf(out, "paired users: %s %d, skipped %d already here\n", verb, rep.Pairings.Imported, rep.Pairings.Present)
			fmt.Fprintf(out, "files: %s %d, kept %d this home has already\n", verb, len(rep.Files.Copied), len(rep.Files.Kept))
			for _, f := range rep.Files.Copied {
				fmt.Fprintf(out, "  %s\n", f)
			}
			for _, f := range rep.Files.Kept {
				fmt.Fprintf(out, "  %s (kept this home's)\n", f)
			}
			if err != nil {
				return fmt.Errorf("migrate hermes-agent: %w (run it again to go on)", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the Hermes Agent home (default: this hermes home)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be imported, import nothing")
	return cmd
}
