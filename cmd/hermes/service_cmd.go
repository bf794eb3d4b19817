package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
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
			bin, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this binary: %w", err)
			}
			if bin, err = filepath.EvalSymlinks(bin); err != nil {
				return fmt.Errorf("finding this binary: %w", err)
			}
			name := "hermes"
			if a.profile != "" {
				name += "-" + a.profile
			}
			unit := systemdUnit(bin, l.Paths.Home, a.profile)
			if print {
				fmt.Fprint(cmd.OutOrStdout(), unit)
				return nil
			}
			cfgDir, err := os.UserConfigDir()
			if err != nil {
				return err
			}
			path := filepath.Join(cfgDir, "systemd", "user", name+".service")
			if err := writeNew(path, []byte(unit), force); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\nenable and start it with:\n  systemctl --user daemon-reload\n  systemctl --user enable --now %s\n  journalctl --user -u %s -f    # its logs\n", path, name, name)
			return nil
		},
	}
	install.Flags().BoolVar(&force, "force", false, "replace an existing unit")
	install.Flags().BoolVar(&print, "print", false, "print the unit instead of writing it")
	cmd.AddCommand(install)
	return cmd
}

// systemdUnit is the user unit running hermes serve from bin for home.
func systemdUnit(bin, home, profile string) string {
	args := "serve"
	if profile != "" {
		args = "-p " + profile + " serve"
	}
	return strings.Join([]string{
		"[Unit]",
		"Description=hermes agent runtime (scheduled jobs, delivery)",
		"After=network-online.target",
		"Wants=network-online.target",
		"",
		"[Service]",
		"Type=simple",
		"ExecStart=" + systemdQuote(bin) + " " + args,
		"Environment=" + systemdQuote("HERMES_HOME="+home),
		"Restart=on-failure",
		"RestartSec=5",
		// hermes serve ends turns and writes what it holds on SIGTERM.
		// mixed: the signal goes to serve alone, which gives its job
		// processes scheduler.shutdown_timeout before passing it on;
		// what is left at TimeoutStopSec is killed.
		"KillSignal=SIGTERM",
		"KillMode=mixed",
		"TimeoutStopSec=90",
		"",
		"[Install]",
		"WantedBy=default.target",
		"",
	}, "\n")
}

// systemdQuote quotes a word for a unit file when it needs it.
func systemdQuote(s string) string {
	if !strings.ContainsAny(s, " \t\"'\\") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
