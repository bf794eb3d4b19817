package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/prompt"
)

func newPromptCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: "See the system prompt a session starts with",
	}
	var asJSON bool
	var toolsets, dir string
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the system prompt a new session here would get, tier by tier, with sizes",
		Long: `Print the system prompt a new session started in this directory (or --dir)
would get, in its three tiers, each with its size in characters and
estimated tokens:

  stable    identity (SOUL.md), tool guidance, the skills index
  context   HERMES.md up to the git root, AGENTS.md, CLAUDE.md, .cursorrules
  volatile  the memory snapshot (MEMORY.md, USER.md) and today's date

A session keeps its prompt for life: memory written during it, or files
edited, show in the next session.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.open(cmd, app.Options{})
			if err != nil {
				return err
			}
			defer h.Close()
			box, err := h.Engine.Toolbox(splitList(toolsets))
			if err != nil {
				return toolsetsError(toolsets, err)
			}
			if dir == "" {
				dir, _ = os.Getwd()
			}
			p := h.Engine.SystemPrompt(dir, box)
			if asJSON {
				writeJSON(cmd.OutOrStdout(), map[string]any{"stable": p.Stable, "context": p.Context, "volatile": p.Volatile, "sizes": p.Sizes()})
				return nil
			}
			printPrompt(cmd, p)
			return nil
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print the tiers and sizes as JSON")
	show.Flags().StringVar(&toolsets, "toolsets", "", "as with these comma-separated toolsets offered")
	show.Flags().StringVar(&dir, "dir", "", "the working directory of the session (default: this one)")
	cmd.AddCommand(show)
	return cmd
}

// printPrompt writes each tier under a line naming it and its size.
func printPrompt(cmd *cobra.Command, p prompt.Prompt) {
	out := cmd.OutOrStdout()
	texts := map[string]string{"stable": p.Stable, "context": p.Context, "volatile": p.Volatile}
	chars, tokens := 0, 0
	for _, s := range p.Sizes() {
		fmt.Fprintf(out, "──── %s: %d chars, ~%d tokens ────\n", s.Tier, s.Chars, s.Tokens)
		if t := texts[s.Tier]; t != "" {
			fmt.Fprintln(out, t)
		} else {
			fmt.Fprintln(out, "(empty)")
		}
		chars += s.Chars
		tokens += s.Tokens
	}
	fmt.Fprintf(out, "──── total: %d chars, ~%d tokens ────\n", chars, tokens)
}
