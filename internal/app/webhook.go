package app

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/gateway/webhook"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/safety"
)

// webhookToolsets are a route's tools when it names none: the payload is
// another service's text, read by the model, so the turn gets no shell
// and no files.
var webhookToolsets = [...]string{"web"}

// WebhookHandler assembles the inbound webhook routes of the
// configuration, or returns nil when there are none. Each verified call
// runs a turn in a new session, with the route's tools and nobody to
// approve a dangerous command (approvals.non_interactive decides), and
// its answer is delivered along the route's deliver: chain, ending in
// $HERMES_HOME/deliveries/.
func (a *App) WebhookHandler(base context.Context) (*webhook.Handler, error) {
	cfg := a.Config.Config.Gateway.Webhook
	if len(cfg.Routes) == 0 {
		return nil, nil
	}
	if a.Engine == nil {
		return nil, fmt.Errorf("app: webhooks need the whole runtime (app.Open), not just the stores")
	}
	type plan struct {
		chain    []notify.Target
		toolsets []string
	}
	plans := map[string]plan{}
	var routes []webhook.Route
	for _, name := range slices.Sorted(maps.Keys(cfg.Routes)) {
		rt := cfg.Routes[name]
		key := "gateway.webhook.routes." + name
		prompt, err := webhook.ParsePrompt(name, rt.Prompt)
		if err != nil {
			return nil, fmt.Errorf("%s.prompt: %w", key, err)
		}
		chain, err := a.Notifier.ParseChain(rt.Deliver)
		if err != nil {
			return nil, fmt.Errorf("%s.deliver: %w", key, err)
		}
		toolsets := rt.Toolsets
		if len(toolsets) == 0 {
			toolsets = webhookToolsets[:]
		}
		if _, err := a.Engine.Toolbox(toolsets); err != nil {
			return nil, fmt.Errorf("%s.toolsets: %w", key, err)
		}
		plans[name] = plan{chain: chain, toolsets: toolsets}
		routes = append(routes, webhook.Route{Name: name, Path: rt.Path, Auth: string(rt.Auth), Secret: string(rt.Secret), Prompt: prompt})
	}
	return webhook.New(base, webhook.Options{
		Routes: routes,
		Seen: func(ctx context.Context, route, id string) (bool, error) {
			return a.Gateway.Seen(ctx, route, id, gatewayDedupeTTL)
		},
		Run: func(ctx context.Context, c webhook.Call) {
			p := plans[c.Route.Name]
			res, err := a.Engine.Turn(ctx, "", engine.Input{Text: c.Prompt, Source: "webhook", Toolsets: p.toolsets,
				Approval: safety.Asker{}}, nil)
			text := ""
			switch {
			case err != nil:
				text = "The webhook's turn could not run: " + err.Error()
			case res.Err != nil:
				text = strings.TrimSpace(res.Final + "\n\nThe turn stopped: " + res.Err.Error())
			default:
				text = res.Final
			}
			rep := a.Notifier.Deliver(context.WithoutCancel(ctx), p.chain, notify.Message{Title: "webhook " + c.Route.Name, Text: text, Job: "webhook:" + c.Route.Name, RunID: c.ID})
			if err := rep.Err(); err != nil {
				a.Log.Error("webhook: the answer was not delivered", slog.String("route", c.Route.Name), slog.String("error", err.Error()))
			}
		},
		Logger: a.Log,
	}), nil
}
