package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hermes-go/hermes/internal/config"
)

// setupFlags answer setup's questions from the command line.
type setupFlags struct {
	provider, apiKey, apiKeyEnv, model, baseURL, approvals, telegram string
	skipTest, yes                                                    bool
}

// newSetupCmd is hermes setup, the first-run wizard, whose every question
// also has a flag so that a script can configure a machine.
func newSetupCmd(a *cli) *cobra.Command {
	var f setupFlags
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Connect hermes to a model: provider, key, model, approvals, Telegram",
		Long: `Set hermes up in one go: pick a provider, give its API key (stored in
$HERMES_HOME/.env with mode 0600, never in config.yaml), check the key with
one call, pick a model from the provider's list, choose how dangerous
commands are approved, and optionally add a Telegram bot token.

On a terminal it asks, showing the current settings as defaults, so running
it again changes only what you change; keys are read without echo. With
--non-interactive (or --yes) it asks nothing: flags give the answers, the
current settings fill in the rest, and a missing answer is an error. Nothing
is written until every answer is checked and the test call has passed.`,
		Example: `  hermes setup
  OPENROUTER_API_KEY=sk-or-... hermes setup --non-interactive --provider openrouter \
      --api-key-env OPENROUTER_API_KEY --model anthropic/claude-sonnet-4.5
  hermes setup --yes --provider ollama --model qwen3:8b --approvals manual
  hermes setup --yes --provider custom --base-url http://gpu:8000/v1 --model m --skip-test`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSetup(cmd, a, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.provider, "provider", "", "the provider `NAME` (openrouter, openai, anthropic, ollama, custom, ...)")
	fl.StringVar(&f.apiKey, "api-key", "", "the API `KEY` (other users can see it in ps; prefer --api-key-env)")
	fl.StringVar(&f.apiKeyEnv, "api-key-env", "", "read the API key from the environment variable `NAME`")
	fl.StringVar(&f.model, "model", "", "the model `NAME` (default: the current one)")
	fl.StringVar(&f.baseURL, "base-url", "", "the API root `URL` (default: the provider's)")
	fl.StringVar(&f.approvals, "approvals", "", "approval `MODE` for dangerous commands: manual, smart or off")
	fl.StringVar(&f.telegram, "telegram-token", "", "a Telegram bot `TOKEN` from @BotFather, for hermes serve")
	fl.BoolVar(&f.skipTest, "skip-test", false, "call nothing: neither list the models nor test the key")
	fl.BoolVar(&f.yes, "non-interactive", false, "ask nothing; take the answers from the flags and the current settings")
	fl.BoolVar(&f.yes, "yes", false, "the same as --non-interactive")
	return cmd
}

// setupRun is one run of setup: where it reads and writes, and who it
// asks (nobody when ask is nil).
type setupRun struct {
	a    *cli
	f    *setupFlags
	out  io.Writer
	ask  *asker
	l    *config.Loaded
	home string
}

// runSetup reads the current settings, gathers and checks every answer,
// and only then writes them.
func runSetup(cmd *cobra.Command, a *cli, f *setupFlags) error {
	s := &setupRun{a: a, f: f, out: cmd.OutOrStdout()}
	if !f.yes {
		file, ok := cmd.InOrStdin().(*os.File)
		if !ok || !term.IsTerminal(int(file.Fd())) {
			return errors.New("setup: stdin is not a terminal, so there is nobody to ask; from a script run: " +
				"hermes setup --non-interactive --provider NAME --api-key-env VARIABLE --model NAME (see hermes setup --help)")
		}
		s.ask = newAsker(file, int(file.Fd()), s.out)
	}
	home, err := config.Home(a.env, a.profile)
	if err != nil {
		return err
	}
	s.home = home
	// The current settings are those of the files: HERMES_* overrides of
	// this shell are not what setup would be keeping.
	l, err := config.Load(config.LoadOptions{Profile: a.profile, Env: filesOnly(a.env)})
	if err != nil {
		return fmt.Errorf("%w\nsetup reads the current settings first: fix %s (or move it away to start afresh)", err, config.PathsFor(home).ConfigFile)
	}
	for _, w := range l.Warnings {
		if strings.Contains(w, "is readable by other users") {
			continue // setup makes it private when it saves
		}
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	s.l = l
	if f.apiKey != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "note: --api-key is visible to other users of this machine (ps); --api-key-env NAME reads it from a variable instead")
	}
	ch, err := s.choose(cmd.Context())
	if err != nil {
		return err
	}
	return s.save(ch)
}

// filesOnly hides the HERMES_* settings of the environment but
// HERMES_HOME, which says where the files are.
func filesOnly(env config.Lookup) config.Lookup {
	return func(name string) (string, bool) {
		if strings.HasPrefix(name, "HERMES_") && name != "HERMES_HOME" {
			return "", false
		}
		return env(name)
	}
}
