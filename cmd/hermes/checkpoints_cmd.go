package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/checkpoint"
)

func newCheckpointsCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checkpoints",
		Short: "List, compare and restore what files held before a turn changed them",
		Long: `With checkpoints.enabled: true, hermes keeps what a file held before a
turn's write_file or patch first changed it, under $HERMES_HOME/checkpoints
(checkpoints.max_snapshots turns, retention_days, max_file_size_mb,
max_total_size_mb). "list" shows them, "diff ID" what restoring one would
change, "restore ID" puts the files back after showing that and asking.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCheckpointsListCmd(a), newCheckpointsDiffCmd(a), newCheckpointsRestoreCmd(a))
	return cmd
}

func newCheckpointsListCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "The checkpoints, newest first: when, which session, which files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			cps, err := h.CheckpointStore().List()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(cps) == 0 {
				fmt.Fprintln(out, "No checkpoints (checkpoints.enabled: true in config.yaml keeps them).")
			}
			for _, cp := range cps {
				fmt.Fprintf(out, "%s  %s  session %s  %d files\n", cp.ID, cp.Created.Local().Format("2006-01-02 15:04"), cp.Session, len(cp.Files))
				for _, f := range cp.Files {
					fmt.Fprintf(out, "    %s\n", f.Path)
				}
			}
			return nil
		},
	}
}

func newCheckpointsDiffCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "diff ID",
		Short: "What restoring a checkpoint would change, file by file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			changes, err := h.CheckpointStore().Restore(args[0], checkpoint.RestoreOptions{DryRun: true, Force: true, Outside: true})
			if err != nil {
				return err
			}
			showChanges(cmd.OutOrStdout(), changes)
			return nil
		},
	}
}

func newCheckpointsRestoreCmd(a *cli) *cobra.Command {
	var opts checkpoint.RestoreOptions
	var yes bool
	cmd := &cobra.Command{
		Use:   "restore ID",
		Short: "Put back the files a turn changed, after showing the diff and asking",
		Long: `Put back the files checkpoint ID's turn changed, as they were before it,
and remove the files it created. What would change is shown first, and
asked about (--yes does not ask). A file changed since the turn is left as
it is unless --force; a file outside the turn's working directory unless
--outside.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			st := h.CheckpointStore()
			plan := opts
			plan.DryRun = true
			changes, err := st.Restore(args[0], plan)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			showChanges(out, changes)
			n := 0
			for _, c := range changes {
				if c.Action == checkpoint.Restore || c.Action == checkpoint.Remove {
					n++
				}
			}
			if n == 0 {
				fmt.Fprintln(out, "Nothing to restore.")
				return nil
			}
			if !yes {
				if !interactiveInput(cmd) {
					return fmt.Errorf("restoring %d files overwrites them, and nobody can be asked here; add --yes to restore", n)
				}
				if !askYes(cmd, fmt.Sprintf("Restore %d files?", n)) {
					fmt.Fprintln(cmd.ErrOrStderr(), "Nothing restored.")
					return nil
				}
			}
			done, err := st.Restore(args[0], opts)
			restored := 0
			for _, c := range done {
				if c.Action == checkpoint.Restore || c.Action == checkpoint.Remove {
					restored++
				}
			}
			fmt.Fprintf(out, "Restored %d files.\n", restored)
			return err
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "also restore files changed since the turn (their changes are lost)")
	cmd.Flags().BoolVar(&opts.Outside, "outside", false, "also restore files outside the turn's working directory")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "restore without asking")
	return cmd
}

// showChanges prints what a restore does to each file, and the diff of
// the ones it changes.
func showChanges(w io.Writer, changes []checkpoint.Change) {
	for _, c := range changes {
		fmt.Fprintf(w, "%-30s %s\n", c.Action, c.Path)
	}
	for _, c := range changes {
		if c.Diff != "" && c.Action != checkpoint.Unchanged && c.Action != checkpoint.NotKept {
			fmt.Fprintf(w, "\n%s", c.Diff)
		}
	}
}
