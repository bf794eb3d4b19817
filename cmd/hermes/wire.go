package main

import (
	"fmt"
	"log/slog"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/anthropic"
	"github.com/hermes-go/hermes/llm/openai"
)

// newProvider builds the adapter for one resolved endpoint.
func newProvider(r config.Resolved) (llm.Provider, error) {
	ep := r.Endpoint()
	switch r.APIMode {
	case config.ChatCompletions:
		return openai.NewChat(ep), nil
	case config.Responses:
		return openai.NewResponses(ep), nil
	case config.AnthropicMessages:
		return anthropic.New(ep), nil
	}
	return nil, fmt.Errorf("api_mode %q is not accepted; use one of chat_completions, responses, anthropic_messages", r.APIMode)
}

// retryPolicy is the configured retry policy with maxRetries attempts
// after the first.
func retryPolicy(c *config.Config, maxRetries int, log *slog.Logger) llm.RetryPolicy {
	return llm.RetryPolicy{
		MaxRetries: maxRetries,
		BaseDelay:  c.Agent.APIRetryBaseDelay,
		MaxDelay:   c.Agent.APIRetryMaxDelay,
		Logger:     log,
	}
}

// newModelChain builds the provider the agent talks to: the main model
// with retries, then each fallback provider with its own retries, behind a
// fallback chain. A fallback entry that cannot be resolved is logged and
// skipped, so that a typo in a backup never stops the primary.
func newModelChain(l *config.Loaded, main config.Resolved, maxRetries int, log *slog.Logger) (llm.Provider, error) {
	pol := retryPolicy(&l.Config, maxRetries, log)
	p, err := newProvider(main)
	if err != nil {
		return nil, err
	}
	routes := []llm.Route{{Provider: llm.WithRetry(p, pol), Model: main.Model}}
	fallbacks, err := l.ResolveFallbacks()
	if err != nil {
		log.Warn("some fallback providers are skipped", slog.String("error", err.Error()))
	}
	for _, fb := range fallbacks {
		fp, err := newProvider(fb)
		if err != nil {
			log.Warn("fallback provider skipped", slog.String("provider", fb.Provider), slog.String("error", err.Error()))
			continue
		}
		routes = append(routes, llm.Route{Provider: llm.WithRetry(fp, pol), Model: fb.Model})
	}
	if len(routes) == 1 {
		return routes[0].Provider, nil
	}
	return llm.NewFallback(routes, llm.FallbackOptions{Cooldown: l.Config.Agent.FallbackCooldown, Logger: log}), nil
}

// priceFunc estimates a call's cost from the built-in price table and the
// pricing section of config.yaml.
func priceFunc(c config.Config) func(model string, u llm.Usage) float64 {
	overrides := make(map[string]llm.Price, len(c.Pricing))
	for name, p := range c.Pricing {
		overrides[name] = llm.Price{InputPerM: p.Input, OutputPerM: p.Output, CacheReadPerM: p.CacheRead, CacheWritePerM: p.CacheWrite}
	}
	return func(model string, u llm.Usage) float64 {
		p, ok := llm.PriceOf(model, overrides)
		if !ok {
			return 0
		}
		return llm.Cost(p, u)
	}
}
