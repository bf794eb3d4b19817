package app

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/slack"
)

// addSlack appends the Slack adapter gateway.slack describes to out, when
// its bot token is set: over Socket Mode with the app token, else over
// the Events API, answered on gateway.webhook.listen.
func (a *App) addSlack(out *[]gateway.Platform) error {
	s := a.Config.Config.Gateway.Slack
	if s.BotToken == "" {
		return nil
	}
	p, err := slack.New(slack.Options{
		BotToken:      string(s.BotToken),
		AppToken:      string(s.AppToken),
		SigningSecret: string(s.SigningSecret),
		EventsPath:    s.EventsPath,
		BaseURL:       s.BaseURL,
		Logger:        a.Log,
		Clock:         a.opts.Clock,
	})
	if err != nil {
		return fmt.Errorf("gateway.slack: %w", err)
	}
	*out = append(*out, p)
	return nil
}
