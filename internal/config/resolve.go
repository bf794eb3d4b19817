package config

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// ModelOverride carries the choices made on the command line (or by a
// /model switch or a scheduled job) for one run; each non-empty field
// beats the configuration.
type ModelOverride struct {
	Provider string
	Model    string
	BaseURL  string
	APIMode  string
	APIKey   string
}

// Resolved is everything needed to call one model. Its APIKey is a Secret,
// and String and GoString redact it, so a Resolved can be logged.
type Resolved struct {
	// Provider is the canonical provider name ("dashscope" for "qwen") or
	// the name of a provider defined under providers.
	Provider string
	BaseURL  string
	APIMode  APIMode
	APIKey   Secret
	// KeySource says where the key was found: "command line",
	// "env OPENAI_API_KEY", ".env:3 OPENAI_API_KEY", "config.yaml:5";
	// empty when no key is used.
	KeySource     string
	Model         string
	ContextLength int
	// CacheTTL is model.cache_ttl (Anthropic prompt caching).
	CacheTTL  CacheTTL
	MaxTokens int
	Headers   map[string]string
	Timeouts  llm.Timeouts
}

// Endpoint returns the llm.Endpoint an adapter needs.
func (r Resolved) Endpoint() llm.Endpoint {
	return llm.Endpoint{
		Name:     r.Provider,
		BaseURL:  r.BaseURL,
		APIKey:   string(r.APIKey),
		Model:    r.Model,
		Headers:  maps.Clone(r.Headers),
		Timeouts: r.Timeouts,
		CacheTTL: string(r.CacheTTL),
	}
}

// String describes the endpoint with the key redacted and header values
// left out.
func (r Resolved) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider=%s model=%s base_url=%s api_mode=%s api_key=%s", r.Provider, r.Model, r.BaseURL, r.APIMode, Redact(string(r.APIKey)))
	if r.KeySource != "" {
		fmt.Fprintf(&b, " (from %s)", r.KeySource)
	}
	if r.ContextLength > 0 {
		fmt.Fprintf(&b, " context_length=%d", r.ContextLength)
	}
	if r.MaxTokens > 0 {
		fmt.Fprintf(&b, " max_tokens=%d", r.MaxTokens)
	}
	if len(r.Headers) > 0 {
		fmt.Fprintf(&b, " headers=%s", strings.Join(sortedKeys(r.Headers), ","))
	}
	return b.String()
}

// GoString keeps %#v as safe as %v.
func (r Resolved) GoString() string { return "config.Resolved{" + r.String() + "}" }

// ResolveModel returns the endpoint of the main model: model.provider (or
// the first of anthropic, openai and openrouter with a key, for auto), with
// model.* over providers.NAME over the built-in table, and ov over all.
// The API key comes from, highest first: ov.APIKey, the process
// environment, .env (the variable named by api_key_env, else the
// provider's usual ones), then api_key in the configuration. Errors say
// what to set and where.
func (l *Loaded) ResolveModel(ov ModelOverride) (Resolved, error) {
	c := &l.Config
	var errs []error
	if ov.APIMode != "" {
		var m APIMode
		if p := parseLeaf(reflect.ValueOf(&m).Elem(), ov.APIMode, ""); p != "" {
			errs = append(errs, badValue("command line", "model.api_mode", ov.APIMode, p))
		}
	}
	if ov.BaseURL != "" {
		if p := checkValue(reflect.ValueOf(ov.BaseURL), "url"); p != "" {
			errs = append(errs, badValue("command line", "model.base_url", ov.BaseURL, p))
		}
	}
	if len(errs) > 0 {
		return Resolved{}, errors.Join(errs...)
	}
	name, top := c.Model.Provider, &c.Model
	if ov.Provider != "" {
		if !sameProvider(ov.Provider, c.Model.Provider) {
			top = nil
		}
		name = ov.Provider
	}
	if isAuto(name) {
		switch {
		case ov.BaseURL != "" || top != nil && top.BaseURL != "":
			name = "custom"
		default:
			var err error
			if name, err = l.detect(); err != nil {
				return Resolved{}, err
			}
		}
	}
	hint := "run: hermes config set model.default MODEL_NAME"
	if top == nil {
		hint = "name one on the command line, or set providers." + name + ".model"
	}
	return l.endpoint(name, top, ov, hint)
}

// ResolveFallbacks returns the endpoints of fallback_providers, in order,
// each with its own model. Entries that cannot be resolved are left out of
// the slice and described in the error, so a caller may run with the rest.
func (l *Loaded) ResolveFallbacks() ([]Resolved, error) {
	c := &l.Config
	var out []Resolved
	var errs []error
	for i, fb := range c.FallbackProviders {
		var top *Model
		if !isAuto(fb.Provider) && sameProvider(fb.Provider, c.Model.Provider) {
			conn := c.Model
			conn.Default, conn.ContextLength, conn.MaxTokens = "", 0, 0
			top = &conn
		}
		hint := fmt.Sprintf("add model: to fallback_providers[%d], or set providers.%s.model", i, fb.Provider)
		r, err := l.endpoint(fb.Provider, top, ModelOverride{Model: fb.Model}, hint)
		if err != nil {
			errs = append(errs, fmt.Errorf("fallback_providers[%d]: %w", i, err))
			continue
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// sameProvider reports whether two provider settings name one provider.
func sameProvider(a, b string) bool {
	if isAuto(a) || isAuto(b) {
		return isAuto(a) && isAuto(b)
	}
	if a == b {
		return true
	}
	ia, oka := LookupProvider(a)
	ib, okb := LookupProvider(b)
	return oka && okb && ia.Name == ib.Name
}

// detect picks the provider for "auto": the first of autoOrder with a key.
func (l *Loaded) detect() (string, error) {
	for _, name := range autoOrder {
		info, _ := LookupProvider(name)
		def, defName, _ := l.Config.providerDef(name)
		names := info.KeyEnv
		if def.APIKeyEnv != "" {
			names = []string{def.APIKeyEnv}
		}
		if key, _ := l.findKey(names, "", nil, def, defName); key != "" {
			return name, nil
		}
	}
	var vars []string
	for _, name := range []string{"openrouter", "openai", "anthropic"} {
		info, _ := LookupProvider(name)
		vars = append(vars, info.KeyEnv...)
	}
	return "", fmt.Errorf("no model provider configured: set %s (or %s) in %s, or run: hermes config set model.provider ollama",
		vars[0], strings.Join(vars[1:], " / "), tildePath(l.Paths.EnvFile, l.env.proc))
}
