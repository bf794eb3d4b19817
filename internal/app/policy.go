package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
)

// newPolicy builds the approval policy of the process from the approvals
// section; each turn says who can be asked (safety.Asker). In smart mode
// judge reviews commands first.
func newPolicy(l *config.Loaded, judge safety.Judge, log *slog.Logger) *safety.Policy {
	c := l.Config
	home := l.Paths.Home
	return &safety.Policy{
		Judge:          judge,
		Mode:           safety.Mode(c.Approvals.Mode),
		Deny:           c.Approvals.Deny,
		Allowlist:      c.CommandAllowlist,
		NonInteractive: string(c.Approvals.NonInteractive),
		Timeout:        c.Approvals.Timeout,
		OnAlways:       onAlways(l),
		Logger:         log,
		HermesHome:     home,
	}
}

// onAlways keeps an "always" answer in config.yaml's command_allowlist;
// with no home (config.FromYAML) there is no file, and the answer holds
// until the process ends.
func onAlways(l *config.Loaded) func(rule string) error {
	if l.Paths.InMemory() {
		return nil
	}
	return func(rule string) error { return appendAllowlist(l.Paths.Home, rule) }
}

// appendAllowlist adds rule to command_allowlist in config.yaml, keeping
// the rest of the file as it is.
func appendAllowlist(home, rule string) error {
	l, err := config.Load(config.LoadOptions{Home: home, Env: func(string) (string, bool) { return "", false }})
	if err != nil {
		return err
	}
	list := l.Config.CommandAllowlist
	if slices.Contains(list, rule) {
		return nil
	}
	// A JSON array is a YAML flow sequence, quoted safely whatever the
	// rule's characters.
	flow, err := json.Marshal(append(slices.Clone(list), rule))
	if err != nil {
		return err
	}
	_, err = config.Set(home, "command_allowlist", string(flow))
	return err
}

// judgeAsk returns how the smart-approval judge asks model through p: one
// system and one user message, answered without streaming.
func judgeAsk(p llm.Provider, model string) func(ctx context.Context, system, user string) (string, error) {
	return func(ctx context.Context, system, user string) (string, error) {
		resp, err := llm.Generate(ctx, p, &llm.Request{
			Model:    model,
			Messages: []llm.Message{llm.SystemMessage(system), llm.UserMessage(user)},
			// Room for a reasoning model's thinking; only the first word of
			// the answer is read.
			MaxTokens: 1024,
			NoStream:  true,
		})
		if err != nil {
			return "", err
		}
		return resp.Text(), nil
	}
}
