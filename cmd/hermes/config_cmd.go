package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/config"
)

func newConfigCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show, check and change the configuration",
		Long: `Settings live in $HERMES_HOME/config.yaml and secrets in $HERMES_HOME/.env.
Values are taken, highest first, from command-line flags, the environment
(HERMES_<KEY> with dots as underscores, e.g. HERMES_MODEL_DEFAULT, and the
providers' key variables such as OPENROUTER_API_KEY), .env, config.yaml and
the built-in defaults.`,
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "show",
			Short: "Print the effective configuration with secrets redacted",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				l, err := a.load(cmd)
				if err != nil {
					return err
				}
				fmt.Fprint(cmd.OutOrStdout(), l.Show())
				return nil
			},
		},
		pathCmd(a, "path", "Print the path of config.yaml", func(p config.Paths) string { return p.ConfigFile }),
		pathCmd(a, "env-path", "Print the path of the .env file that holds secrets", func(p config.Paths) string { return p.EnvFile }),
		&cobra.Command{
			Use:     "get KEY",
			Short:   "Print the effective value of one key (e.g. model.default)",
			Example: "  hermes config get model.provider\n  hermes config get agent",
			Args:    cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				l, err := a.load(cmd)
				if err != nil {
					return err
				}
				v, err := l.Get(args[0])
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), v)
				return nil
			},
		},
		&cobra.Command{
			Use:   "set KEY VALUE",
			Short: "Write one key into config.yaml, keeping its comments",
			Example: "  hermes config set model.provider openrouter\n" +
				"  hermes config set model.default anthropic/claude-sonnet-4.5\n" +
				"  hermes config set agent.api_max_retries 5",
			Args: cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				home, err := config.Home(a.env, a.profile)
				if err != nil {
					return err
				}
				res, err := config.Set(home, args[0], args[1])
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s = %s (in %s)\n", res.Key, res.Value, res.File)
				if res.Note != "" {
					fmt.Fprintln(cmd.ErrOrStderr(), "note:", res.Note)
				}
				return nil
			},
		},
		newConfigCheckCmd(a),
	)
	return cmd
}

// newConfigCheckCmd validates everything and resolves the model and its
// fallbacks, the way a long-running hermes would at start, and says
// plainly what is wrong.
func newConfigCheckCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Validate the configuration and resolve the model and fallbacks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			l, err := a.load(cmd)
			if err != nil {
				where := "the configuration"
				if home, herr := config.Home(a.env, a.profile); herr == nil {
					where = config.PathsFor(home).ConfigFile
				}
				fmt.Fprintf(out, "config: %s is invalid\n%v\n", where, err)
				return &exitError{code: 1}
			}
			fmt.Fprintf(out, "config: %s (ok, %d warnings)\n", l.Paths.ConfigFile, len(l.Warnings))
			if n := len(l.Unhonoured); n > 0 {
				fmt.Fprintf(out, "not honoured: %d Hermes Agent settings load but do nothing in hermes:\n", n)
				for _, u := range l.UnhonouredReport() {
					fmt.Fprintf(out, "  %s\n", u)
				}
			}
			var failed []error
			if r, err := l.ResolveModel(config.ModelOverride{}); err != nil {
				fmt.Fprintf(out, "model: not usable\n%v\n", err)
				failed = append(failed, err)
			} else {
				fmt.Fprintf(out, "model: %s\n", r)
			}
			fbs, err := l.ResolveFallbacks()
			for i, fb := range fbs {
				fmt.Fprintf(out, "fallback %d: %s\n", i+1, fb)
			}
			if err != nil {
				fmt.Fprintf(out, "fallbacks: %v\n", err)
				failed = append(failed, err)
			}
			if err := errors.Join(failed...); err != nil {
				return &exitError{code: 1}
			}
			return nil
		},
	}
}

// pathCmd prints one path of the hermes home in use, for scripts and for
// people looking for the file to edit.
func pathCmd(a *cli, use, short string, pick func(config.Paths) string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := config.Home(a.env, a.profile)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), pick(config.PathsFor(home)))
			return nil
		},
	}
}
