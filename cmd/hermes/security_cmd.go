package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/safety/shell"
)

func newSecurityCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "security",
		Short: "See how hermes's safety checks treat a command",
	}
	var dir string
	check := &cobra.Command{
		Use:   "check COMMAND",
		Short: "Print how a shell command would be treated: hardline, dangerous or safe",
		Long: `Print how the terminal tool would treat a shell command, as JSON:
  {"verdict": "hardline|dangerous|safe", "rule": "...", "description": "..."}
hardline commands never run, not even with --yolo; dangerous ones need
approval (approvals.mode); safe ones run. Relative paths are judged from
the current directory (--dir), and changes to hermes's own home
($HERMES_HOME) are dangerous, as in a session started here. The command is
only inspected, never run. It exits 0 whatever the verdict.`,
		Example: `  hermes security check "rm -rf /"
  hermes security check "git push --force origin main"
  hermes security check "ls -la"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := shell.Options{Dir: dir}
			if o.Dir == "" {
				o.Dir, _ = os.Getwd()
			}
			if home, ok := a.env("HOME"); ok {
				o.Home = home
			}
			if home, err := config.Home(a.env, a.profile); err == nil {
				o.HermesHome = home
			}
			v := o.Classify(joinArgs(args))
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
	check.Flags().StringVar(&dir, "dir", "", "judge relative paths from this `DIR` (default: the current directory)")
	cmd.AddCommand(check)
	return cmd
}
