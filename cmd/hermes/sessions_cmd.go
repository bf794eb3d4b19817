package main

import (
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/session/sqlite"
)

func newSessionsCmd(a *app) *cobra.Command {
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
func withStore(cmd *cobra.Command, a *app, fn func(*sqlite.Store) error) error {
	l, err := a.load(cmd)
	if err != nil {
		return err
	}
	st, err := openStore(a, l, a.logger(cmd))
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

// getSession returns a session or an error saying how to find one.
func getSession(cmd *cobra.Command, st session.Store, id string) (*session.Session, error) {
	s, err := st.Get(cmd.Context(), id)
	if errors.Is(err, session.ErrNotFound) {
		return nil, fmt.Errorf("session %q does not exist; `hermes sessions list` shows the sessions there are", id)
	}
	return s, err
}

func newSessionsListCmd(a *app) *cobra.Command {
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
			return withStore(cmd, a, func(st *sqlite.Store) error {
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
				fmt.Fprintln(tw, "ID\tSTARTED\tSOURCE\tMESSAGES\tTITLE")
				for _, s := range list {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", s.ID, s.StartedAt.Local().Format("2006-01-02 15:04"), s.Source, s.MessageCount, oneLine(s.Title, 60))
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

func newSessionsShowCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print one session's messages",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(cmd, a, func(st *sqlite.Store) error {
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
				return writeMarkdown(cmd.OutOrStdout(), s, msgs)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session and its messages as JSON")
	return cmd
}

func newSessionsSearchCmd(a *app) *cobra.Command {
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Find messages in all sessions",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			query := joinArgs(args)
			return withStore(cmd, a, func(st *sqlite.Store) error {
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
					fmt.Fprintf(cmd.OutOrStdout(), "%s  %s  %s\n    %s\n", h.SessionID, h.CreatedAt.Local().Format(time.DateTime), h.Role, oneLine(h.Snippet, 200))
				}
				return nil
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 20, "show at most `N` matches")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}
