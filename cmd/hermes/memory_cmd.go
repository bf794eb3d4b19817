package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/memory/facts"
)

func newMemoryCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "See and edit what hermes remembers",
		Long: `hermes remembers in two ways.

MEMORY.md (its notes) and USER.md (about you), in $HERMES_HOME/memories,
are small and shown in every session's system prompt; the model edits them
with its memory tool, and you can edit them by hand. "hermes memory show"
prints them.

Long-term memory holds facts extracted from finished sessions (chats,
one-shot questions, and jobs with memory: extract): preferences, recurring
tasks, decisions. The most relevant ones are recalled before the first
message of a new session. "list", "search" and "forget" manage them,
"extract" extracts a session now; memory.long_term: false turns it off.`,
	}
	var limit int
	var asJSON, all bool
	open := func(cmd *cobra.Command) (*app.App, *facts.Store, error) {
		h, err := a.openStores(cmd)
		if err != nil {
			return nil, nil, err
		}
		return h, h.Facts, nil
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print MEMORY.md and USER.md as the next session's prompt will show them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			m := l.Config.Memory
			snap, err := memory.Open(filepath.Join(l.Paths.Home, "memories"),
				memory.Limits{Memory: m.MemoryCharLimit, User: m.UserCharLimit}).Snapshot()
			if err != nil {
				return err
			}
			text := snap.Render()
			if text == "" {
				text = "(empty: nothing remembered yet)"
			}
			fmt.Fprintln(cmd.OutOrStdout(), text)
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List long-term facts, newest first (--all: with those a later fact of the same subject superseded)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, fs, err := open(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			list := fs.List
			if all {
				list = fs.ListAll
			}
			found, err := list(cmd.Context(), limit)
			if err != nil {
				return err
			}
			return printFacts(cmd, found, asJSON)
		},
	}
	search := &cobra.Command{
		Use:   "search QUERY",
		Short: "Find long-term facts by words",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, fs, err := open(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			scored, err := fs.Search(cmd.Context(), args[0], limit)
			if err != nil {
				return err
			}
			found := make([]facts.Fact, len(scored))
			for i, s := range scored {
				found[i] = s.Fact
			}
			return printFacts(cmd, found, asJSON)
		},
	}
	forget := &cobra.Command{
		Use:   "forget ID",
		Short: "Delete one long-term fact",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("forget: %q is not a fact id; hermes memory list shows them", args[0])
			}
			h, fs, err := open(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			if err := fs.Forget(cmd.Context(), id); errors.Is(err, facts.ErrNotFound) {
				return fmt.Errorf("forget: there is no fact %d; hermes memory list shows them", id)
			} else if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "forgot fact %d\n", id)
			return nil
		},
	}
	list.Flags().BoolVar(&all, "all", false, "also the facts a later fact of the same subject superseded")
	for _, c := range []*cobra.Command{list, search} {
		c.Flags().IntVar(&limit, "limit", 50, "at most this many facts")
		c.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	}
	cmd.AddCommand(show, list, search, forget, newMemoryExtractCmd(a))
	return cmd
}

// printFacts writes facts as a table or JSON.
func printFacts(cmd *cobra.Command, found []facts.Fact, asJSON bool) error {
	if asJSON {
		if found == nil {
			found = []facts.Fact{}
		}
		writeJSON(cmd.OutOrStdout(), found)
		return nil
	}
	if len(found) == 0 {
		fmt.Fprintln(cmd.OutOrStdout(), "no facts")
		return nil
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tFACT\tFROM SESSION")
	for _, f := range found {
		text := oneLine(f.Content, 80)
		if f.SupersededBy != 0 {
			text = fmt.Sprintf("(superseded by %d) %s", f.SupersededBy, text)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", f.ID, f.Kind, text, f.SourceSession)
	}
	return tw.Flush()
}
