package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newAgentsCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "See the role agents of config.yaml",
		Long: `Role agents are named identities under agents: in config.yaml, each with
its own system prompt or soul file, toolsets, model, memory (MEMORY.md and
USER.md in $HERMES_HOME/agents/NAME unless memory: says otherwise),
skills and knowledge bases (knowledge:, all of them when left out). A turn runs as one with hermes chat --agent NAME, a job's agent:,
or a chat bound to it; its session keeps the agent when continued.`,
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the role agents",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			c, out := l.Config, cmd.OutOrStdout()
			type row struct {
				Name        string   `json:"name"`
				Description string   `json:"description,omitempty"`
				Model       string   `json:"model,omitempty"`
				Toolsets    []string `json:"toolsets,omitempty"`
				Skills      []string `json:"skills,omitempty"`
				Knowledge   []string `json:"knowledge,omitempty"`
				Memory      string   `json:"memory"`
			}
			rows := []row{}
			for _, name := range c.AgentNames() {
				ra := c.Agents[name]
				dir, err := ra.MemoryDir(l.Paths.Home, name)
				if err != nil {
					return fmt.Errorf("agents.%s.memory: %w", name, err)
				}
				rows = append(rows, row{Name: name, Description: ra.Description, Model: ra.Model, Toolsets: ra.Toolsets, Skills: ra.Skills,
					Knowledge: ra.Knowledge, Memory: dir})
			}
			if asJSON {
				writeJSON(out, rows)
				return nil
			}
			if len(rows) == 0 {
				fmt.Fprintln(out, "No agents are configured; define them under agents: in config.yaml.")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tMODEL\tTOOLSETS\tKNOWLEDGE\tDESCRIPTION")
			for _, r := range rows {
				knowledge := strings.Join(r.Knowledge, ",")
				if knowledge == "" {
					knowledge = "(all)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, orDefault(r.Model), orDefault(strings.Join(r.Toolsets, ",")), knowledge, r.Description)
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print the agents as a JSON array")
	cmd.AddCommand(list)
	return cmd
}

// orDefault shows an empty setting as the default it keeps.
func orDefault(s string) string {
	if s == "" {
		return "(default)"
	}
	return s
}

// agentChoices says which agents a name may be chosen from.
func agentChoices(names []string) string {
	if len(names) == 0 {
		return "no agents are configured; define them under agents: in config.yaml"
	}
	return "the configured agents are " + strings.Join(names, ", ") + " (hermes agents list)"
}
