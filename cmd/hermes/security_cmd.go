package main

import (
	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/safety/shell"
)

func newSecurityCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "security",
		Short: "See how hermes's safety checks treat a command",
	}
	check := &cobra.Command{
		Use:   "check COMMAND",
		Short: "Print how a shell command would be treated: hardline, dangerous or safe",
		Long: `Print how the terminal tool would treat a shell command, as JSON:
  {"verdict": "hardline|dangerous|safe", "rule": "...", "description": "..."}
hardline commands never run, not even with --yolo; dangerous ones need
approval (approvals.mode); safe ones run. The command is only inspected,
never run. It exits 0 whatever the verdict.`,
		Example: `  hermes security check "rm -rf /"
  hermes security check "git push --force origin main"
  hermes security check "ls -la"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := shell.Classify(joinArgs(args))
			writeJSON(cmd.OutOrStdout(), struct {
				Verdict     shell.Level `json:"verdict"`
				Rule        string      `json:"rule"`
				Description string      `json:"description"`
			}{v.Level, v.Rule, v.Description})
			return nil
		},
	}
	// Everything after the first word is the command, dashes included:
	// `hermes security check ls -la` checks "ls -la".
	check.Flags().SetInterspersed(false)
	cmd.AddCommand(check)
	return cmd
}
