package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/skill"
)

func newSkillsCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "See, install and remove the skills hermes follows",
		Long: `Skills are procedures hermes saved for itself or you installed: one
folder per skill, $HERMES_HOME/skills/<category>/<name>/SKILL.md (the
agentskills.io format, as in Hermes), plus the read-only folders in
skills.external_dirs. Their index is in every session's system prompt; in
a chat, /<name> [instruction] runs one.`,
	}
	lib := func(cmd *cobra.Command) (*skill.Library, error) {
		l, err := a.load(cmd)
		if err != nil {
			return nil, err
		}
		return app.OpenSkills(l, a.logger(cmd)), nil
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the skills by category",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lb, err := lib(cmd)
			if err != nil {
				return err
			}
			skills := lb.Skills()
			if asJSON {
				writeJSON(cmd.OutOrStdout(), skills)
				return nil
			}
			// A skill the curator marked stale says so; it is usable
			// all the same.
			usage, _ := lb.Usage()
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CATEGORY\tSKILL\tDESCRIPTION")
			for _, s := range skills {
				name := s.Name
				if usage[s.Name].Stale() {
					name += " (stale)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Category, name, oneLine(s.Description, 70))
			}
			tw.Flush()
			printSkillProblems(cmd, lb.Problems())
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	view := &cobra.Command{
		Use:   "view NAME",
		Short: "Print a skill's SKILL.md and list its files",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lb, err := lib(cmd)
			if err != nil {
				return err
			}
			s, ok := lb.Get(args[0])
			if !ok {
				return fmt.Errorf("there is no skill %q; hermes skills list shows them", args[0])
			}
			data, err := os.ReadFile(s.Path)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "# %s\n%s", s.Path, data)
			return nil
		},
	}
	install := &cobra.Command{
		Use:   "install PATH_OR_GIT_URL",
		Short: "Install skills from a folder or a git repository",
		Long: `Install one skill (a folder holding SKILL.md) or a collection of them, from
a local folder or a git URL (cloned with git). Every SKILL.md is checked
and scanned for prompt injection first; nothing is installed unless all
pass.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lb, err := lib(cmd)
			if err != nil {
				return err
			}
			names, err := lb.Install(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			for _, n := range names {
				fmt.Fprintln(cmd.OutOrStdout(), "installed", n)
			}
			return nil
		},
	}
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Delete a skill",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lb, err := lib(cmd)
			if err != nil {
				return err
			}
			if err := lb.Remove(args[0]); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "removed", args[0])
			return nil
		},
	}
	check := &cobra.Command{
		Use:   "check",
		Short: "Check every skill and list the ones that cannot be loaded",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lb, err := lib(cmd)
			if err != nil {
				return err
			}
			problems := lb.Check()
			fmt.Fprintf(cmd.OutOrStdout(), "%d skills load\n", len(lb.Skills()))
			printSkillProblems(cmd, problems)
			if len(problems) > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.AddCommand(list, view, install, remove, check, newSkillsCurateCmd(a), newSkillsRestoreCmd(a), newSkillsArchiveCmd(a))
	return cmd
}

func printSkillProblems(cmd *cobra.Command, problems []skill.Problem) {
	if len(problems) == 0 {
		return
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\n%d skill(s) cannot be loaded:\n", len(problems))
	for _, p := range problems {
		fmt.Fprintf(cmd.OutOrStdout(), "  %s: %s\n", p.File, p.Reason)
	}
}
