package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/audit"
	"github.com/hermes-go/hermes/internal/safety"
)

// approvals are the ways the audit log says a command was decided.
func approvals() []string {
	return []string{"safe", "allowlist", "earlier", "yolo", "off", "non_interactive", "judge", "person", "denied"}
}

func newAuditCmd(a *cli) *cobra.Command {
	var q audit.Query
	var since time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show who ran which tool, with which arguments, and what approved it",
		Long: `Print the audit log of state.db, newest first: every tool call of every
turn (terminal, chats, API, jobs, teams), with the user and tenant it ran
for, its arguments (secrets redacted), how it ended, and how its command
was approved: safe (no approval needed), allowlist, earlier (an approval
given before in the session), yolo, off, non_interactive, judge, person
(with who answered), or denied (with why).`,
		Example: `  hermes audit --since 24h
  hermes audit --user ana --tool terminal
  hermes audit --approval denied --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if since < 0 {
				return fmt.Errorf("--since %s: give a positive duration, like 24h or 90m", since)
			}
			if q.Approval != "" && !slices.Contains(approvals(), q.Approval) {
				return fmt.Errorf("--approval %q: use one of %s", q.Approval, strings.Join(approvals(), ", "))
			}
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			if since > 0 {
				q.Since = time.Now().Add(-since)
			}
			list, err := h.Audit.Find(cmd.Context(), q)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if list == nil {
					list = []audit.Entry{}
				}
				return printKBJSON(w, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(w, "no tool calls match")
				return nil
			}
			fmt.Fprintf(w, "%-19s %-10s %-16s %-6s %-22s %s\n", "TIME", "USER", "TOOL", "STATUS", "APPROVAL", "ARGUMENTS")
			for _, e := range list {
				user := e.User
				if user == "" {
					user = "(owner)"
				}
				approval := e.Approval
				if e.ApprovedBy != "" {
					approval += " by " + e.ApprovedBy
				}
				fmt.Fprintf(w, "%-19s %-10s %-16s %-6s %-22s %s\n", e.At.Local().Format("2006-01-02 15:04:05"),
					safety.Escape(user), safety.Escape(e.Tool), e.Status, safety.Escape(oneLine(approval, 22)), safety.Escape(oneLine(e.Args, 80)))
				if e.Reason != "" {
					fmt.Fprintf(w, "%19s denied: %s\n", "", safety.Escape(oneLine(e.Reason, 120)))
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&q.User, "user", "", "only this user's calls")
	fl.StringVar(&q.Tenant, "tenant", "", "only this tenant's calls")
	fl.StringVar(&q.Tool, "tool", "", "only calls of this tool")
	fl.StringVar(&q.SessionID, "session", "", "only calls of this session")
	fl.StringVar(&q.Approval, "approval", "", "only calls approved so: safe, allowlist, earlier, yolo, off, non_interactive, judge, person or denied")
	fl.DurationVar(&since, "since", 0, "only calls in the last DURATION (24h, 90m)")
	fl.IntVar(&q.Limit, "limit", 50, "how many calls at most")
	fl.BoolVar(&asJSON, "json", false, "print the entries as JSON")
	cmd.AddCommand(newAuditPruneCmd(a))
	return cmd
}

func newAuditPruneCmd(a *cli) *cobra.Command {
	var days int
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Delete the audit log's entries older than --keep-days (audit.keep_days, 365)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			if days == 0 {
				days = h.Config.Config.Audit.KeepDaysOrDefault()
			}
			if days < 0 {
				return fmt.Errorf("--keep-days %d: give a number of days ≥ 1", days)
			}
			n, err := h.Audit.Prune(cmd.Context(), time.Now().AddDate(0, 0, -days))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d entries older than %d days deleted\n", n, days)
			return nil
		},
	}
	cmd.Flags().IntVar(&days, "keep-days", 0, "days of entries to keep (default audit.keep_days, 365)")
	return cmd
}
