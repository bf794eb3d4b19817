package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/hooks"
	"github.com/hermes-go/hermes/internal/notify"
)

// newHooks builds the runner of config.yaml's hooks: consents are kept in
// HERMES_HOME, payloads are redacted of every secret hermes holds, and a
// hook runs with the environment a terminal command gets (no keys or
// secrets). Only a front with a person at a terminal passes an asker.
func (a *App) newHooks() *hooks.Runner {
	l := a.Config
	var env func() []string
	if a.Tools != nil && a.Tools.terminal != nil {
		env = a.Tools.terminal.Environ
	}
	return hooks.New(hooks.Options{
		Hooks:    ConfiguredHooks(l.Config),
		Consents: HookConsents(l),
		Ask:      a.opts.HookAsker,
		Redact:   newLiveRedactor(a).Redact,
		Env:      env,
		Logger:   a.Log,
	})
}

// HookConsents is where the consents to hooks are kept:
// $HERMES_HOME/hooks-allowlist.json, mode 0600. A file rather than a
// table of state.db, so a person can read it and take a consent back by
// deleting a line, and hermes's file protections keep a model from
// writing it.
func HookConsents(l *config.Loaded) *hooks.Consents {
	return hooks.NewConsents(homeFile(l, hooks.ConsentFile), nil)
}

// ConfiguredHooks are the hooks of c in the order they run: by event, then
// as listed. A program given as ~/... is found in the user's home.
func ConfiguredHooks(c config.Config) []hooks.Hook {
	home, _ := os.UserHomeDir()
	var out []hooks.Hook
	for _, e := range hooks.Events() {
		for _, h := range c.Hooks[string(e)] {
			argv := append([]string(nil), h.Command...)
			if rest, ok := strings.CutPrefix(argv[0], "~/"); ok && home != "" {
				argv[0] = filepath.Join(home, rest)
			}
			out = append(out, hooks.Hook{Event: e, Command: argv, Tools: h.Tools, Timeout: h.Timeout,
				FailOpen: h.Fail == config.HookFailOpen})
		}
	}
	return out
}

// delivered runs the on_delivery hooks of a delivery (notify's
// Config.Delivered).
func (a *App) delivered(ctx context.Context, msg notify.Message, rep notify.Report) {
	if a.Hooks == nil {
		return
	}
	p := hooks.Payload{Event: hooks.OnDelivery, Job: msg.Job, Text: msg.Text, Delivered: rep.Delivered}
	if err := rep.Err(); err != nil {
		p.Error = err.Error()
	}
	a.Hooks.Notify(ctx, p)
}
