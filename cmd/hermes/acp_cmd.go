package main

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/acp"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/slash"
)

func newACPCmd(a *cli) *cobra.Command {
	var f turnFlags
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve hermes to editors over the Agent Client Protocol (Zed, JetBrains) on stdin/stdout",
		Long: `Serve hermes as an ACP agent on stdin/stdout: the editor starts
"hermes acp", opens sessions in its project directory and sends prompts;
hermes streams its answers, reasoning and tool calls back, and asks in the
editor before a dangerous command runs (allow once, for the session,
always, or reject; no answer rejects). Hardline commands never run.
The editor can switch a session's approval mode (ask, smart, yolo) and
its model, and pass MCP servers that the session alone uses.
Sessions are hermes's own: hermes sessions list shows them, and the
editor can load them again. Logs go to stderr.

Zed (settings.json):
  {"agent_servers": {"hermes": {"command": "hermes", "args": ["acp"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.open(cmd, f.options())
			if err != nil {
				return err
			}
			defer h.Close()
			ctx := cmd.Context()
			go h.Tools.Watch(ctx)
			srv := acp.New(acp.Options{
				Turns: h.Engine, Store: h.Sessions, Version: version, Logger: h.Log,
				Commands: skillCommands(h.Slash()), Yolo: f.yolo,
				Approvals: safety.Mode(h.Config.Config.Approvals.Mode), Models: h.ModelChoices(),
				Reserved: func(toolset string) bool { return slices.Contains(h.Tools.Registry.Toolsets(), toolset) },
				Invoke:   func(name, args string) (string, error) { return slashSkill(h, name, args) },
			})
			return srv.Serve(ctx, a.stdin, cmd.OutOrStdout())
		},
	}
	f.register(cmd)
	return cmd
}

// skillCommands are the slash commands an editor can run: the skills,
// which become the message that runs them; hermes's own commands act on a
// terminal or a chat and are not offered.
func skillCommands(r slash.Registry) []slash.Command {
	var out []slash.Command
	for _, c := range r.Commands(slash.CLI) {
		if c.Skill {
			out = append(out, c)
		}
	}
	return out
}
