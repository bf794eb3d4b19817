package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newPairingCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pairing",
		Short: "Allow people on chat platforms to talk to hermes",
		Long: `Someone hermes does not know who writes to it in a direct message gets a
pairing code (gateway.unauthorized_dm_behavior: pair). They give it to
you, and you approve it here; from then on they may talk to hermes on
that platform. Codes last an hour; five wrong approvals in a row lock a
platform's pairing for an hour.`,
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the codes waiting for approval, the people paired and locked platforms",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			p, err := h.Gateway.ListPairings(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				writeJSON(cmd.OutOrStdout(), p)
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			if len(p.Pending)+len(p.Approved)+len(p.Locked) == 0 {
				fmt.Fprintln(w, "No pairing codes, paired people or locks.")
			}
			for _, c := range p.Pending {
				fmt.Fprintf(w, "waiting\t%s\t%s\tuser %s\texpires %s\n", c.Platform, c.Code, c.User, localTime(c.Expires))
			}
			for _, c := range p.Approved {
				fmt.Fprintf(w, "paired\t%s\tuser %s\tsince %s\n", c.Platform, c.User, localTime(c.Approved))
			}
			for _, l := range p.Locked {
				fmt.Fprintf(w, "locked\t%s\tuntil %s\n", l.Platform, localTime(l.Until))
			}
			return w.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	approve := &cobra.Command{
		Use:     "approve PLATFORM CODE",
		Short:   "Pair the person a code was given to",
		Example: "  hermes pairing approve telegram K7QW3MXP",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			p, err := h.Gateway.Approve(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Paired user %s on %s: they may talk to hermes now.\n", p.User, p.Platform)
			return nil
		},
	}
	revoke := &cobra.Command{
		Use:     "revoke PLATFORM USER",
		Short:   "Unpair someone",
		Example: "  hermes pairing revoke telegram 123456789",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			if err := h.Gateway.Revoke(cmd.Context(), args[0], args[1]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "User %s on %s is no longer paired.\n", args[1], args[0])
			return nil
		},
	}
	cmd.AddCommand(list, approve, revoke)
	return cmd
}
