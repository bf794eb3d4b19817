package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/session"
)

func newSessionsCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, read, search, export and delete stored conversations",
		Long: `Every conversation hermes has is stored in $HERMES_HOME/state.db, message
by message. These commands read it; search understands words and, for
Chinese, Japanese and Korean text, any phrase of one or more characters.`,
	}
	cmd.AddCommand(newSessionsListCmd(a), newSessionsShowCmd(a), newSessionsSearchCmd(a),
		newSessionsExportCmd(a), newSessionsDeleteCmd(a), newSessionsStatsCmd(a))
	return cmd
}

// withStore opens the store for a sessions subcommand and closes it after.
func withStore(cmd *cobra.Command, a *cli, fn func(app.SessionStore) error) error {
	h, err := a.openStores(cmd)
	if err != nil {
		return err
	}
	defer h.Close()
	return fn(h.Sessions)
}

// getSession returns a session or an error saying how to find one.
func getSession(cmd *cobra.Command, st session.Store, id string) (*session.Session, error) {
	s, err := st.Get(cmd.Context(), id)
	if errors.Is(err, session.ErrNotFound) {
		return nil, fmt.Errorf("session %q does not exist; `hermes sessions list` shows the sessions there are", id)
	}
	return s, err
}

func newSessionsListCmd(a *cli) *cobra.Command {
	var limit int
	var source string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List sessions, most recent first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return fmt.Errorf("--limit %d: give 1 or more", limit)
			}
			return withStore(cmd, a, func(st app.SessionStore) error {
				list, err := st.List(cmd.Context(), session.ListOptions{Source: source, Limit: limit})
				if err != nil {
					return err
				}
				if asJSON {
					if list == nil {
						list = []session.Session{}
					}
					writeJSON(cmd.OutOrStdout(), list)
					return nil
				}
				if len(list) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "No sessions yet. Start one with `hermes chat`.")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintf(tw, "ID\tSTARTED (%s)\tSOURCE\tMESSAGES\tTITLE\n", time.Now().Format("MST"))
				for _, r := range sessionTree(list) {
					fmt.Fprintf(tw, "%s%s\t%s\t%s\t%d\t%s\n", treePrefix(r.depth), r.s.ID,
						r.s.StartedAt.Local().Format("2006-01-02 15:04"), r.s.Source, r.s.MessageCount, oneLine(r.s.Title, 60))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 20, "show at most `N` sessions")
	cmd.Flags().StringVar(&source, "source", "", "only sessions from `SOURCE` (cli, telegram, cron, ...)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func newSessionsShowCmd(a *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print one session's messages",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, a, func(st app.SessionStore) error {
				s, err := getSession(cmd, st, args[0])
				if err != nil {
					return err
				}
				msgs, err := st.Messages(cmd.Context(), s.ID)
				if err != nil {
					return err
				}
				if asJSON {
					if msgs == nil {
						msgs = []session.Message{}
					}
					writeJSON(cmd.OutOrStdout(), struct {
						Session  *session.Session  `json:"session"`
						Messages []session.Message `json:"messages"`
					}{s, msgs})
					return nil
				}
				return session.WriteMarkdown(cmd.OutOrStdout(), s, msgs)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session and its messages as JSON")
	return cmd
}

func newSessionsSearchCmd(a *cli) *cobra.Command {
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Find messages in all sessions",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			query := joinArgs(args)
			return withStore(cmd, a, func(st app.SessionStore) error {
				hits, err := st.Search(cmd.Context(), query, session.SearchOptions{Limit: limit})
				if err != nil {
					return err
				}
				if asJSON {
					if hits == nil {
						hits = []session.Hit{}
					}
					writeJSON(cmd.OutOrStdout(), hits)
					return nil
				}
				if len(hits) == 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "Nothing matches %q.\n", query)
					return nil
				}
				for _, h := range hits {
					fmt.Fprintf(cmd.OutOrStdout(), "%s  %s  %s\n    %s\n", h.SessionID, localTime(h.CreatedAt), h.Role, oneLine(h.Snippet, 200))
				}
				return nil
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 20, "show at most `N` matches")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

// treeRow is a session and how deep it sits under the sessions listed
// above it.
type treeRow struct {
	s     session.Session
	depth int
}

// treePrefix indents a session depth levels under the one it follows.
func treePrefix(depth int) string {
	if depth == 0 {
		return ""
	}
	return strings.Repeat("  ", depth-1) + "└ "
}

// sessionTree orders list (most recent first) so that each session whose
// parent is listed too follows its parent, indented: a conversation that
// was compressed goes on in a child session, and a delegated or team task
// runs in one, and they read as one thread that way. Sessions whose parent
// is not listed keep their place.
func sessionTree(list []session.Session) []treeRow {
	listed := make(map[string]bool, len(list))
	for _, s := range list {
		listed[s.ID] = true
	}
	children := map[string][]session.Session{}
	var roots []session.Session
	for _, s := range list {
		if s.ParentID != "" && listed[s.ParentID] && s.ParentID != s.ID {
			children[s.ParentID] = append(children[s.ParentID], s)
			continue
		}
		roots = append(roots, s)
	}
	out := make([]treeRow, 0, len(list))
	seen := make(map[string]bool, len(list))
	var walk func(s session.Session, depth int)
	walk = func(s session.Session, depth int) {
		if seen[s.ID] {
			return // a cycle in stored parents; show each session once
		}
		seen[s.ID] = true
		out = append(out, treeRow{s, depth})
		kids := children[s.ID]
		for i := len(kids) - 1; i >= 0; i-- { // oldest child first
			walk(kids[i], depth+1)
		}
	}
	for _, s := range roots {
		walk(s, 0)
	}
	for _, s := range list { // sessions only reachable through a cycle
		if !seen[s.ID] {
			walk(s, 0)
		}
	}
	return out
}
