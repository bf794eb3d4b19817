package app

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/anthropic"
	"github.com/hermes-go/hermes/internal/llm/openai"
)

// Models resolves the models turns call from the configuration, building
// each provider chain once. It implements engine.Models.
type Models struct {
	l        *config.Loaded
	override config.ModelOverride
	clock    clock.Clock
	log      *slog.Logger

	mu    sync.Mutex
	built map[string]builtModel
}

// builtModel is a resolved model, or why it could not be.
type builtModel struct {
	model    engine.Model
	resolved config.Resolved
	err      error
}

var _ engine.Models = (*Models)(nil)

func newModels(l *config.Loaded, override config.ModelOverride, c clock.Clock, log *slog.Logger) *Models {
	return &Models{l: l, override: override, clock: c, log: log, built: map[string]builtModel{}}
}

// Model returns the main model (name empty), with the command-line
// overrides, or the model name on the configured provider; each behind its
// retries and the fallback chain.
func (m *Models) Model(name string) (engine.Model, error) {
	b := m.get(name)
	return b.model, b.err
}

// Main is the main model's resolved endpoint, for fronts that show which
// model they talk to, or why there is none.
func (m *Models) Main() (config.Resolved, error) {
	b := m.get("")
	return b.resolved, b.err
}

func (m *Models) get(name string) builtModel {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.built[name]; ok {
		return b
	}
	b := m.build(name)
	if name != "" && b.err != nil {
		// A name that does not resolve is not kept: names come from
		// chats (/model), and each kept failure would be memory for good.
		return b
	}
	if len(m.built) >= maxBuiltModels {
		main, ok := m.built[""]
		clear(m.built)
		if ok {
			m.built[""] = main
		}
	}
	m.built[name] = b
	return b
}

// maxBuiltModels bounds the models kept built: the main one, and those
// jobs and chats name, which people choose from a handful.
const maxBuiltModels = 64

// build resolves and wires one model.
func (m *Models) build(name string) builtModel {
	// A named model is called on the main model's provider: with the
	// endpoint the command line gave, when it gave one.
	over := m.override
	if name != "" {
		over.Model = name
	}
	r, err := m.l.ResolveModel(over)
	if err == nil {
		var p llm.Provider
		if p, err = ModelChain(m.l, r, m.retries(m.l.Config.Agent.APIMaxRetries)); err == nil {
			return builtModel{model: engine.Model{Provider: p, Name: r.Model, MaxTokens: r.MaxTokens, ReasoningEffort: reasoningEffort(m.l.Config.Agent)}, resolved: r}
		}
	}
	if name != "" {
		err = fmt.Errorf("model %q: %w", name, err)
	}
	return builtModel{resolved: r, err: err}
}

// aux is the model a side job asks (auxiliary.vision for vision_analyze,
// auxiliary.memory for long-term memory, auxiliary.compression for
// summaries): the one configured under key when it is set, else the main
// one, which may be missing (a zero Model). A configured one that does
// not resolve is an error naming key.
func (m *Models) aux(key string, aux config.Fallback) (engine.Model, error) {
	// Hermes Agent writes provider "auto" and no model for "the main
	// model".
	if aux.Model == "" && (aux.Provider == "" || strings.EqualFold(aux.Provider, "auto")) {
		main, _ := m.Model("")
		return main, nil
	}
	ar, err := m.l.ResolveModel(config.ModelOverride{Provider: aux.Provider, Model: aux.Model})
	if err != nil {
		return engine.Model{}, fmt.Errorf("config.yaml: %s: %w", key, err)
	}
	p, err := NewProvider(ar)
	if err != nil {
		return engine.Model{}, fmt.Errorf("config.yaml: %s: %w", key, err)
	}
	return engine.Model{Provider: llm.WithRetry(p, m.retries(m.l.Config.Agent.APIMaxRetries)), Name: ar.Model}, nil
}

// retries is the configured retry policy on the models' clock.
func (m *Models) retries(maxRetries int) llm.RetryPolicy {
	p := RetryPolicy(&m.l.Config, maxRetries, m.log)
	p.Clock = m.clock
	return p
}

// NewProvider builds the adapter for one resolved endpoint.
func NewProvider(r config.Resolved) (llm.Provider, error) {
	return newAdapter(r.APIMode, r.Endpoint())
}

// newAdapter builds the adapter speaking mode to ep.
func newAdapter(mode config.APIMode, ep llm.Endpoint) (llm.Provider, error) {
	switch mode {
	case config.ChatCompletions:
		return openai.NewChat(ep), nil
	case config.Responses:
		return openai.NewResponses(ep), nil
	case config.AnthropicMessages:
		return anthropic.New(ep), nil
	}
	return nil, fmt.Errorf("api_mode %q is not accepted; use one of chat_completions, responses, anthropic_messages", mode)
}

// RetryPolicy is the configured retry policy with maxRetries attempts
// after the first.
func RetryPolicy(c *config.Config, maxRetries int, log *slog.Logger) llm.RetryPolicy {
	return llm.RetryPolicy{
		MaxRetries: maxRetries,
		BaseDelay:  c.Agent.APIRetryBaseDelay,
		MaxDelay:   c.Agent.APIRetryMaxDelay,
		Logger:     log,
	}
}

// ModelChain builds the provider the agent talks to: the main model with
// retries by pol, then each fallback provider with its own retries,
// behind a fallback chain. A fallback entry that cannot be resolved is
// logged and skipped, so that a typo in a backup never stops the primary.
func ModelChain(l *config.Loaded, main config.Resolved, pol llm.RetryPolicy) (llm.Provider, error) {
	log := pol.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p, err := NewProvider(main)
	if err != nil {
		return nil, err
	}
	routes := []llm.Route{{Provider: llm.WithRetry(p, pol), Model: main.Model}}
	fallbacks, err := l.ResolveFallbacks()
	if err != nil {
		log.Warn("some fallback providers are skipped", slog.String("error", err.Error()))
	}
	for _, fb := range fallbacks {
		fp, err := NewProvider(fb)
		if err != nil {
			log.Warn("fallback provider skipped", slog.String("provider", fb.Provider), slog.String("error", err.Error()))
			continue
		}
		routes = append(routes, llm.Route{Provider: llm.WithRetry(fp, pol), Model: fb.Model})
	}
	if len(routes) == 1 {
		return routes[0].Provider, nil
	}
	return llm.NewFallback(routes, llm.FallbackOptions{Cooldown: l.Config.Agent.FallbackCooldown, Logger: log, Clock: pol.Clock}), nil
}

// prices are config's pricing: as price-table overrides.
func prices(c config.Config) map[string]llm.Price {
	out := make(map[string]llm.Price, len(c.Pricing))
	for name, p := range c.Pricing {
		out[name] = llm.Price{InputPerM: p.Input, OutputPerM: p.Output, CacheReadPerM: p.CacheRead, CacheWritePerM: p.CacheWrite}
	}
	return out
}

// reasoningEffort is agent.reasoning_effort as sent: "none" asks for none.
func reasoningEffort(a config.Agent) string {
	if a.ReasoningEffort == "none" {
		return ""
	}
	return string(a.ReasoningEffort)
}
