package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/logctx"
	"github.com/hermes-go/hermes/internal/safety/redact"
)

// cli is what every subcommand shares: the process environment, the
// global flags, and the configuration, loaded on first use so that
// `hermes version` never touches the disk.
type cli struct {
	env     config.Lookup
	stdin   io.Reader
	profile string
	debug   bool
	loaded  *config.Loaded
	// base is the command's context before signals were attached, for
	// commands (the chat) that handle Ctrl-C themselves.
	base context.Context
	// stopSignals releases the signal watcher once the command is done.
	stopSignals func()
	// log, when a command set it, is the logger everything it wires
	// uses (job processes log JSON lines, like hermes serve).
	log *slog.Logger
}

// close releases what the command held.
func (a *cli) close() {
	if a.stopSignals != nil {
		a.stopSignals()
	}
}

func defaultEnv() *cli { return &cli{env: os.LookupEnv, stdin: os.Stdin} }

// loadOptions say where the configuration is read from: the profile and
// the environment.
func (a *cli) loadOptions() config.LoadOptions {
	return config.LoadOptions{Profile: a.profile, Env: a.env}
}

// load reads the configuration once and tells its warnings on stderr:
// each of them for the commands that are about the configuration or
// start the long-running process (listWarnings), one line pointing to
// hermes config check for every other, so a problem does not bury what
// a command prints under the same lines every time.
func (a *cli) load(cmd *cobra.Command) (*config.Loaded, error) {
	if a.loaded != nil {
		return a.loaded, nil
	}
	l, err := config.Load(a.loadOptions())
	if l != nil {
		warnings(cmd.ErrOrStderr(), cmd.CommandPath(), l.Warnings)
	}
	if err != nil {
		return nil, err
	}
	a.loaded = l
	return l, nil
}

// logger writes structured logs to stderr: warnings by default, everything
// with --debug or HERMES_LOG_LEVEL=debug; secrets are redacted from them.
func (a *cli) logger(cmd *cobra.Command) *slog.Logger {
	if a.log != nil {
		return a.log
	}
	return newLogger(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: a.logLevel(slog.LevelWarn)}))
}

// newLogger is every logger of hermes over h: secrets redacted from what
// it writes, and each line logged with a turn's context given the turn's
// attributes (session_id, turn_id, user, platform, job).
func newLogger(h slog.Handler) *slog.Logger {
	return slog.New(redact.Handler(logctx.Handler(h)))
}

// logLevel is the level logs are kept at: debug with --debug or
// HERMES_LOG_LEVEL=debug, else logging.level of config.yaml once it is
// loaded, else def.
func (a *cli) logLevel(def slog.Level) slog.Level {
	if v, _ := a.env("HERMES_LOG_LEVEL"); a.debug || strings.EqualFold(v, "debug") {
		return slog.LevelDebug
	}
	if a.loaded != nil && a.loaded.Config.Logging.Level != "" {
		var l slog.Level
		if l.UnmarshalText([]byte(a.loaded.Config.Logging.Level)) == nil {
			return l
		}
	}
	return def
}

func newRootCmd(a *cli) *cobra.Command {
	root := &cobra.Command{
		Use:   "hermes",
		Short: "A long-running AI agent runtime in one small binary",
		Long: `hermes turns a language model into a dispatcher for the scripts, APIs, files
and chat groups you already have.

Configuration lives in $HERMES_HOME (default ~/.hermes): config.yaml for
settings, .env for secrets. Start by pointing it at a model: hermes setup
asks for the provider, key and model and tests them; or by hand:

  echo 'OPENROUTER_API_KEY=sk-or-...' >> ~/.hermes/.env
  hermes config set model.default anthropic/claude-sonnet-4.5
  hermes model call "Say hello"
  hermes chat

or, for a local Ollama server:

  hermes config set model.provider ollama
  hermes config set model.default qwen3:8b`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		// Ctrl-C and SIGTERM cancel the command's context, so that a
		// command stops its model calls and saves its work before exiting.
		// Installed here rather than in main because starting the signal
		// watcher costs a thread, which `hermes version` need not pay.
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			a.base = cmd.Context()
			ctx, stop := signal.NotifyContext(a.base, os.Interrupt, syscall.SIGTERM)
			cmd.SetContext(ctx)
			a.stopSignals = stop
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return status(cmd, a)
		},
	}
	root.PersistentFlags().StringVarP(&a.profile, "profile", "p", "", "use the profile `NAME` ($HERMES_HOME/profiles/NAME)")
	root.PersistentFlags().BoolVar(&a.debug, "debug", false, "log debug detail to stderr")
	root.SetIn(a.stdin)
	root.AddCommand(newVersionCmd(), newConfigCmd(a), newModelCmd(a), newChatCmd(a), newSessionsCmd(a), newToolsCmd(a), newMCPCmd(a), newPromptCmd(a), newMemoryCmd(a), newSkillsCmd(a), newServiceCmd(a), newDeliverCmd(a), newServeCmd(a), newCronCmd(a), newSecurityCmd(a), newPairingCmd(a), newGatewayCmd(a), newACPCmd(a), newBatchCmd(a), newAgentsCmd(a), newTeamCmd(a), newSetupCmd(a), newDoctorCmd(a), newHooksCmd(a), newLogsCmd(a), newKBCmd(a), newAuditCmd(a), newUsersCmd(a), newStorageCmd(a), newMigrateCmd(a), newCheckpointsCmd(a))
	return root
}

// status is what bare `hermes` prints: the model it would use, or what to
// set when there is none.
func status(cmd *cobra.Command, a *cli) error {
	out := cmd.OutOrStdout()
	l, err := a.load(cmd)
	if err != nil {
		return err
	}
	r, err := l.ResolveModel(config.ModelOverride{})
	if err != nil {
		fmt.Fprintf(out, "hermes is not connected to a model yet: run `hermes setup` to choose a provider, key and model.\n\n%v\n\nConfiguration: %s\nSecrets:       %s\nSee `hermes --help` for examples.\n",
			err, l.Paths.ConfigFile, l.Paths.EnvFile)
		return nil
	}
	fmt.Fprintf(out, "hermes %s: model %s via %s (%s, %s)\n", version, r.Model, r.Provider, r.APIMode, r.BaseURL)
	fmt.Fprintln(out, "Talk to it with `hermes chat`; `hermes model call \"hello\"` checks the connection; `hermes --help` lists the commands.")
	return nil
}

// listWarnings are the commands that print every configuration warning:
// the ones that check the configuration, and serve as it starts.
func listWarnings() []string {
	return []string{"hermes serve", "hermes doctor", "hermes config check"}
}

// warnings writes the configuration's warnings for the command at path:
// all of them, or one line that counts them.
func warnings(w io.Writer, path string, ws []string) {
	if len(ws) == 0 {
		return
	}
	if slices.Contains(listWarnings(), path) {
		for _, x := range ws {
			fmt.Fprintln(w, "warning:", x)
		}
		return
	}
	noun := "problems"
	if len(ws) == 1 {
		noun = "problem"
	}
	fmt.Fprintf(w, "warning: the configuration has %d %s: hermes config check\n", len(ws), noun)
}
