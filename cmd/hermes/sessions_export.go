package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/session"
)

func newSessionsExportCmd(a *cli) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "export ID",
		Short: "Write one session to stdout as JSON lines or Markdown",
		Long: `Write one session to stdout. --format jsonl (the default) prints the session
record on the first line and one message per line after it; --format md
prints a readable transcript.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "jsonl" && format != "md" {
				return fmt.Errorf("--format %q is not accepted; use jsonl or md", format)
			}
			return withStore(cmd, a, func(st app.SessionStore) error {
				s, err := getSession(cmd, st, args[0])
				if err != nil {
					return err
				}
				msgs, err := st.Messages(cmd.Context(), s.ID)
				if err != nil {
					return err
				}
				if format == "md" {
					return session.WriteMarkdown(cmd.OutOrStdout(), s, msgs)
				}
				return session.WriteJSONL(cmd.OutOrStdout(), s, msgs)
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "jsonl", "jsonl or md")
	return cmd
}

func newSessionsDeleteCmd(a *cli) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete one session and its messages (asks first; --yes does not)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, a, func(st app.SessionStore) error {
				s, err := getSession(cmd, st, args[0])
				if err != nil {
					return err
				}
				if !yes {
					if !interactiveInput(cmd) {
						return fmt.Errorf("deleting session %s cannot be undone, and nobody can be asked here; add --yes to delete it", s.ID)
					}
					if !askYes(cmd, fmt.Sprintf("Delete session %s %q (%d messages)? This cannot be undone.", s.ID, s.Title, s.MessageCount)) {
						fmt.Fprintln(cmd.ErrOrStderr(), "Kept.")
						return nil
					}
				}
				if err := st.Delete(cmd.Context(), s.ID); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Deleted session %s (%d messages).\n", s.ID, s.MessageCount)
				return nil
			})
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking")
	return cmd
}

func newSessionsStatsCmd(a *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Totals over all sessions: messages, tool calls, tokens, estimated cost",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, a, func(st app.SessionStore) error {
				s, err := st.Stats(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					writeJSON(cmd.OutOrStdout(), s)
					return nil
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "sessions:     %d\n", s.Sessions)
				for _, src := range slices.Sorted(maps.Keys(s.BySource)) {
					fmt.Fprintf(out, "  %-10s  %d\n", src, s.BySource[src])
				}
				fmt.Fprintf(out, "messages:     %d\ntool calls:   %d\n", s.Messages, s.ToolCalls)
				fmt.Fprintf(out, "tokens:       %d in (%d cache read, %d cache write), %d out (%d reasoning)\n",
					s.InputTokens, s.CacheReadTokens, s.CacheWriteTokens, s.OutputTokens, s.ReasoningTokens)
				fmt.Fprintf(out, "cost:         $%.4f (estimated; models without a known price count 0)\n", s.CostUSD)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

func joinArgs(args []string) string { return strings.Join(args, " ") }
