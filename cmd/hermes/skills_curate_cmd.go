package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
)

// newSkillsCurateCmd is hermes skills curate.
func newSkillsCurateCmd(a *cli) *cobra.Command {
	var o app.CurateOptions
	var asJSON, quiet bool
	cmd := &cobra.Command{
		Use:   "curate",
		Short: "Mark unused skills stale, archive long-unused ones, merge duplicates",
		Long: `Run the skills curator now, as hermes serve does on its schedule
(curator.interval_hours, once hermes has been idle for
curator.min_idle_hours), and print what it did.

Only the skills the agent wrote are curated. Installed skills (hermes
skills install), skills written by hand and the bundled skills are left
alone (the bundled ones are curated with curator.prune_builtins: true);
so are the skills a job loads or a role agent lists.

  unused curator.stale_after_days (14)    marked stale: still listed and
                                           usable; using it clears the mark
  unused curator.archive_after_days (30)  moved to skills/.archive, out of
                                           the index
  curator.consolidate: true (or --consolidate)
                                           the model (auxiliary.curator, else
                                           the main model) is shown the
                                           skills and proposes merges of
                                           near-duplicates; each is checked
                                           like a skill the agent writes, the
                                           originals go to the archive
  curator.archive_ttl_days (0: never)     archived skills older are deleted

Nothing else is ever deleted: hermes skills restore NAME brings an archived
skill back, or undoes a merge. --dry-run prints everything the run would
do, the model's proposed merges included, and changes no file.`,
		Example: `  hermes skills curate --dry-run
  hermes skills curate --consolidate
  hermes skills restore deploy-notes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			rep, err := h.Curate(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				writeJSON(cmd.OutOrStdout(), rep)
				return nil
			}
			rep.WriteText(cmd.OutOrStdout(), !quiet)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "print what would be done, and change nothing")
	cmd.Flags().BoolVar(&o.Consolidate, "consolidate", false, "ask the model for merges even when curator.consolidate is false")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&quiet, "brief", false, "leave out the merged skills' SKILL.md")
	return cmd
}

// newSkillsRestoreCmd is hermes skills restore.
func newSkillsRestoreCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "restore NAME",
		Short: "Bring an archived skill back, or undo a merge",
		Long: `Move an archived skill from skills/.archive back to where it was, with
its usage record. When NAME is a skill the curator merged, or one a merge
replaced, the merge is undone: the merged skill goes to the archive and
the skills it replaced come back as they were. hermes skills archive
lists what can be restored.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			msg, err := h.RestoreSkill(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), msg)
			return nil
		},
	}
}

// newSkillsArchiveCmd is hermes skills archive.
func newSkillsArchiveCmd(a *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "archive",
		Short: "List the archived skills and the merges that can be undone",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			skills, merges, err := h.ArchivedSkills()
			if err != nil {
				return err
			}
			if asJSON {
				writeJSON(cmd.OutOrStdout(), map[string]any{"skills": skills, "merges": merges})
				return nil
			}
			out := cmd.OutOrStdout()
			if len(skills) == 0 {
				fmt.Fprintln(out, "The archive is empty.")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SKILL\tARCHIVED\tWHY\tFROM")
			for _, s := range skills {
				from := s.Category
				if from == "" {
					from = "."
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.At.Local().Format("2006-01-02 15:04"), s.Reason, from)
			}
			tw.Flush()
			for _, m := range merges {
				fmt.Fprintf(out, "\nmerge %s: %s -> %s (hermes skills restore %s undoes it)\n", m.At.Local().Format("2006-01-02 15:04"),
					strings.Join(m.Sources, " + "), m.Into, m.Into)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
