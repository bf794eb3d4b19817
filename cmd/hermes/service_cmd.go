package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
)

func newServiceCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Run hermes serve as a systemd user service",
	}
	var force, print bool
	install := &cobra.Command{
		Use:   "install",
		Short: "Write a systemd user unit that runs hermes serve, and say how to enable it",
		Long: `Write ~/.config/systemd/user/hermes.service (hermes-PROFILE.service for a
profile), which runs this binary's "hermes serve" with this HERMES_HOME,
restarts it when it fails, and logs to the journal. It prints the commands
that enable and start it; run "loginctl enable-linger $USER" once for it
to run while you are logged out (a VPS, a Raspberry Pi).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			svc, err := app.NewService(l.Paths.Home, a.profile)
			if err != nil {
				return err
			}
			if print {
				fmt.Fprint(cmd.OutOrStdout(), svc.Unit)
				return nil
			}
			path, err := svc.Install(force)
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%w; use --force to replace it", err)
			} else if err != nil {
				return err
			}
			name := svc.Name
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\nenable and start it with:\n  systemctl --user daemon-reload\n  systemctl --user enable --now %s\n  journalctl --user -u %s -f    # its logs\n", path, name, name)
			return nil
		},
	}
	install.Flags().BoolVar(&force, "force", false, "replace an existing unit")
	install.Flags().BoolVar(&print, "print", false, "print the unit instead of writing it")
	cmd.AddCommand(install)
	return cmd
}
