package config

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// endpoint resolves provider name. top is the model section when its
// connection settings apply to this provider (nil otherwise); ov holds
// values that beat everything; hint says how to choose a model when none
// is configured.
func (l *Loaded) endpoint(name string, top *Model, ov ModelOverride, hint string) (Resolved, error) {
	c := &l.Config
	info, builtin := LookupProvider(name)
	def, defName, defined := c.providerDef(name)
	if !builtin && !defined {
		return Resolved{}, fmt.Errorf("provider %q is not accepted; use one of %s, or define it under providers in %s",
			name, providerNames(), tildePath(l.Paths.ConfigFile, l.env.proc))
	}
	if top == nil {
		top = &Model{}
	}
	r := Resolved{Provider: name, Headers: map[string]string{}}
	if builtin {
		r.Provider = info.Name
	}
	r.BaseURL = first(ov.BaseURL, top.BaseURL, def.BaseURL, info.BaseURL)
	r.APIMode = APIMode(first(ov.APIMode, string(top.APIMode), string(def.APIMode), string(info.APIMode), string(ChatCompletions)))
	r.Model = first(ov.Model, top.Default, def.Model)
	r.ContextLength = firstInt(top.ContextLength, def.ContextLength)
	r.MaxTokens = firstInt(top.MaxTokens, def.MaxTokens)
	r.CacheTTL = top.CacheTTL
	maps.Copy(r.Headers, info.Headers)
	maps.Copy(r.Headers, def.Headers)
	if len(r.Headers) == 0 {
		r.Headers = nil
	}
	a := c.Agent
	r.Timeouts = llm.Timeouts{Connect: a.ConnectTimeout, FirstByte: a.FirstByteTimeout, Idle: a.IdleTimeout}

	var errs []error
	if r.BaseURL == "" {
		errs = append(errs, fmt.Errorf("provider %s needs a base URL: run: hermes config set model.base_url http://HOST:PORT/v1", r.Provider))
	}
	names := info.KeyEnv
	switch {
	case top.APIKeyEnv != "":
		names = []string{top.APIKeyEnv}
	case def.APIKeyEnv != "":
		names = []string{def.APIKeyEnv}
	}
	r.APIKey, r.KeySource = l.findKey(names, ov.APIKey, top, def, defName)
	if r.APIKey == "" && len(names) > 0 {
		errs = append(errs, fmt.Errorf("provider %s needs an API key: set %s in %s (or export it)",
			r.Provider, orList(names), tildePath(l.Paths.EnvFile, l.env.proc)))
	}
	if r.Model == "" {
		errs = append(errs, fmt.Errorf("no model chosen for provider %s: %s", r.Provider, hint))
	}
	if len(errs) > 0 {
		return Resolved{}, errors.Join(errs...)
	}
	return r, nil
}

// findKey looks for an API key in precedence order: the command line, the
// process environment (each of names), .env (each of names), the model
// section's api_key, then the provider entry's api_key. It returns the key
// and where it was found.
func (l *Loaded) findKey(names []string, flag string, top *Model, def Provider, defName string) (Secret, string) {
	if flag != "" {
		return Secret(flag), "command line"
	}
	if proc := l.env.proc; proc != nil {
		for _, n := range names {
			if v, ok := proc(n); ok && v != "" {
				return Secret(v), "env " + n
			}
		}
	}
	for _, n := range names {
		if e, ok := l.env.dotenv[n]; ok && e.Value != "" {
			return Secret(e.Value), fmt.Sprintf("%s:%d %s", l.env.file, e.Line, n)
		}
	}
	if top != nil && top.APIKey != "" {
		return top.APIKey, l.Origin("model.api_key")
	}
	if def.APIKey != "" {
		return def.APIKey, l.Origin("providers." + defName + ".api_key")
	}
	return "", ""
}

// first returns the first non-empty string.
func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// firstInt returns the first non-zero number.
func firstInt(vals ...int) int {
	for _, v := range vals {
		if v != 0 {
			return v
		}
	}
	return 0
}

// orList writes variable names as "A (or B / C)".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return names[0] + " (or " + strings.Join(names[1:], " / ") + ")"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
