package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/tools/declared"

	"github.com/spf13/cobra"
)

func newToolsCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "See, try and import the tools hermes can offer the model",
	}
	var asJSON bool
	var toolsets string
	list := &cobra.Command{
		Use:   "list",
		Short: "List every tool, its toolset, and whether it is offered (and why not)",
		Long: `List every tool hermes has. A tool is offered to the model when its toolset
is selected (toolsets and agent.disabled_toolsets in config.yaml, or
--toolsets) and its requirements are met; otherwise the reason is shown.
Problems in declared tools files ($HERMES_HOME/tools/*.yaml, tools: in
config.yaml) are listed after the tools, by file and line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.open(cmd, app.Options{})
			if err != nil {
				return err
			}
			defer h.Close()
			l := h.Config
			enabled := l.Config.Toolsets
			if toolsets != "" {
				enabled = splitList(toolsets)
			}
			infos, err := h.Tools.Registry.List(enabled, l.Config.Agent.DisabledToolsets)
			if err != nil {
				return fmt.Errorf("toolsets: %w", err)
			}
			problems := h.Tools.Declared.Problems()
			if asJSON {
				writeJSON(cmd.OutOrStdout(), infos)
				for _, p := range problems {
					fmt.Fprintln(cmd.ErrOrStderr(), "problem:", p.Error())
				}
				return nil
			}
			defer printProblems(cmd.OutOrStdout(), problems)
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tTOOLSET\tOFFERED\tDESCRIPTION")
			for _, t := range infos {
				state := "yes"
				switch {
				case !t.Available:
					state = "no: " + t.Reason
				case !t.Selected:
					state = "no: toolset not selected"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Toolset, state, oneLine(t.Description, 70))
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	list.Flags().StringVar(&toolsets, "toolsets", "", "show the selection these comma-separated toolsets would make")
	cmd.AddCommand(list, newToolsTestCmd(a), newToolsImportCmd(a))
	return cmd
}

// printProblems lists what is wrong in the declared tools files; the tools
// they name are not offered until the files are fixed (a file that broke
// after loading keeps its last good tools).
func printProblems(w io.Writer, problems []declared.Problem) {
	if len(problems) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d problem(s) in declared tools files:\n", len(problems))
	for _, p := range problems {
		fmt.Fprintln(w, "  "+p.Error())
	}
}
