package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/mcp"
)

func newMCPCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Use MCP servers' tools, and serve hermes's tools over MCP",
		Long: `hermes is an MCP client and an MCP server.

As a client it offers the model the tools of the servers under mcp_servers
in config.yaml, as mcp__<server>__<tool> (toolset mcp-<server>):

  mcp_servers:
    everything:                      # stdio: hermes starts the server
      command: npx
      args: ["-y", "@modelcontextprotocol/server-everything"]
      env: {SOME_TOKEN: "${SOME_TOKEN}"}
    internal:                        # streamable HTTP
      url: https://mcp.internal.example/mcp
      headers: {Authorization: "Bearer ${INTERNAL_MCP_TOKEN}"}
      timeout: 60s                   # one tool call
      connect_timeout: 10s
      tools: {include: [search, fetch]}

As a server ("hermes mcp serve") it lets Claude Desktop, Cursor or another
agent use hermes's declared tools, file and web tools (mcp_serve.toolsets
chooses), with hermes's guards and approval policy.`,
	}
	cmd.AddCommand(newMCPListCmd(a), newMCPTestCmd(a), newMCPServeCmd(a))
	return cmd
}

func newMCPListCmd(a *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Connect the configured MCP servers and show their state and tool counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			m := app.NewMCP(l, tool.NewRegistry(), a.logger(cmd), version)
			defer m.Close()
			app.ConnectMCP(cmd.Context(), m, l.Config)
			if asJSON {
				writeJSON(cmd.OutOrStdout(), m.Status())
				return nil
			}
			printMCPStatus(cmd.OutOrStdout(), m.Status())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func newMCPTestCmd(a *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "test NAME",
		Short: "Connect one MCP server, list its tools and how long that took",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			m := app.NewMCP(l, tool.NewRegistry(), a.logger(cmd), version)
			defer m.Close()
			rep, err := m.Test(cmd.Context(), args[0])
			if err != nil {
				return fmt.Errorf("mcp server %q: %w", args[0], err)
			}
			if asJSON {
				writeJSON(cmd.OutOrStdout(), rep)
				return nil
			}
			printMCPTest(cmd, rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// printMCPTest writes a test report for a person.
func printMCPTest(cmd *cobra.Command, rep mcp.TestReport) {
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "%s (%s): %s %s, connected in %d ms, listed %d tools in %d ms\n",
		rep.Server, rep.Transport, rep.ServerName, rep.ServerVersion,
		rep.Connect.Milliseconds(), len(rep.Tools), rep.List.Milliseconds())
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tOFFERED AS\tDESCRIPTION")
	for _, t := range rep.Tools {
		as := t.Registered
		switch {
		case t.Problem != "":
			as = "not offered: " + t.Problem
		case as == "":
			as = "not offered: left out by tools.include/exclude"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, as, oneLine(t.Description, 60))
	}
	tw.Flush()
}

// printMCPStatus writes one line per server: name, transport, state, tool
// count and the last error.
func printMCPStatus(w io.Writer, st []mcp.ServerStatus) {
	if len(st) == 0 {
		fmt.Fprintln(w, "no MCP servers are configured (mcp_servers in config.yaml)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTRANSPORT\tSTATE\tTOOLS\tLAST ERROR")
	for _, s := range st {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", s.Name, s.Transport, s.State, s.Tools, oneLine(s.LastError, 80))
	}
	tw.Flush()
}
