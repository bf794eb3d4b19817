package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hermes-go/hermes/internal/config"
)

// setupChoice is every answer setup has gathered; nothing is written
// until all of them are in and checked.
type setupChoice struct {
	provider string
	info     config.ProviderInfo
	changed  bool // another provider than the configured one
	baseURL  string
	// keyVar is the variable the key is kept in; key the key, newKey
	// whether it is to be written to .env (false when the current one
	// is kept).
	keyVar string
	key    string
	newKey bool
	model  string
	// approvals and telegram are empty when left as they are.
	approvals string
	telegram  string
}

// current is what the configuration uses now, for defaults.
type current struct {
	provider, model, baseURL string
}

// current reads the settings in use, resolved where they resolve, so that
// "auto" shows as the provider it picks.
func (s *setupRun) current() current {
	m := s.l.Config.Model
	if r, err := s.l.ResolveModel(config.ModelOverride{}); err == nil {
		return current{provider: r.Provider, model: r.Model, baseURL: r.BaseURL}
	}
	c := current{model: m.Default, baseURL: m.BaseURL}
	if p := strings.ToLower(strings.TrimSpace(m.Provider)); p != "auto" {
		c.provider = p
	}
	return c
}

// choose gathers the answers: from the flags, the person or the current
// settings, in the order a person thinks of them.
func (s *setupRun) choose(ctx context.Context) (setupChoice, error) {
	cur := s.current()
	var ch setupChoice
	var err error
	if ch.provider, err = s.pickProvider(ctx, cur.provider); err != nil {
		return ch, err
	}
	ch.info, _ = config.LookupProvider(ch.provider)
	ch.changed = ch.provider != cur.provider
	if ch.baseURL, err = s.pickBaseURL(ctx, ch, cur); err != nil {
		return ch, err
	}
	if err = s.pickKey(ctx, &ch); err != nil {
		return ch, err
	}
	if err = s.pickModel(ctx, &ch, cur); err != nil {
		return ch, err
	}
	if ch.approvals, err = s.pickApprovals(ctx); err != nil {
		return ch, err
	}
	ch.telegram, err = s.pickTelegram(ctx)
	return ch, err
}

// providers lists the built-in providers and those config.yaml defines.
func (s *setupRun) providers() []string {
	var names []string
	for _, p := range config.BuiltinProviders() {
		names = append(names, p.Name)
	}
	var own []string
	for name := range s.l.Config.Providers {
		if _, ok := config.LookupProvider(name); !ok {
			own = append(own, name)
		}
	}
	slices.Sort(own)
	return append(names, own...)
}

// checkProvider returns the canonical name of a provider setup can use.
func (s *setupRun) checkProvider(name string) (string, error) {
	if info, ok := config.LookupProvider(name); ok {
		return info.Name, nil
	}
	if _, ok := s.l.Config.Providers[name]; ok {
		return name, nil
	}
	return "", fmt.Errorf("--provider: %q is not accepted; use one of %s, or a provider defined under providers in config.yaml",
		name, strings.Join(s.providers(), ", "))
}

// pickProvider takes --provider, or asks with the list of providers and
// the key each needs, or keeps the current one.
func (s *setupRun) pickProvider(ctx context.Context, cur string) (string, error) {
	if s.f.provider != "" {
		return s.checkProvider(s.f.provider)
	}
	if s.ask == nil {
		if cur == "" {
			return "", fmt.Errorf("--provider: missing; name the provider, one of %s", strings.Join(s.providers(), ", "))
		}
		return cur, nil
	}
	names := s.providers()
	fmt.Fprintln(s.out, "Which provider should hermes use?")
	for i, name := range names {
		fmt.Fprintf(s.out, "  %2d) %-11s %s\n", i+1, name, s.keyHint(name))
	}
	def := cur
	if def == "" {
		def = "openrouter"
	}
	for {
		ans, err := s.ask.line(ctx, "Provider (number or name)", def)
		if err != nil {
			return "", err
		}
		if n, err := strconv.Atoi(ans); err == nil && n >= 1 && n <= len(names) {
			ans = names[n-1]
		}
		name, err := s.checkProvider(ans)
		if err == nil {
			return name, nil
		}
		fmt.Fprintf(s.out, "  %q is not one of them; give a number from 1 to %d or a name.\n", ans, len(names))
	}
}

// keyHint says what a provider needs: its key variable, or where it runs.
func (s *setupRun) keyHint(name string) string {
	info, builtin := config.LookupProvider(name)
	switch {
	case !builtin:
		return "defined in config.yaml"
	case info.NeedsKey():
		return "key in " + strings.Join(info.KeyEnv, " or ")
	case info.BaseURL == "":
		return "any OpenAI-compatible server: you give its URL"
	}
	return "no key; a local server at " + info.BaseURL
}

// pickBaseURL returns where the model is called: --base-url, the current
// one, the provider's. It asks for it only where people's servers differ
// (local servers and custom endpoints).
func (s *setupRun) pickBaseURL(ctx context.Context, ch setupChoice, cur current) (string, error) {
	if s.f.baseURL != "" {
		return checkBaseURL(s.f.baseURL)
	}
	def := s.l.Config.Providers[ch.provider].BaseURL
	if !ch.changed && cur.baseURL != "" {
		def = cur.baseURL
	}
	if def == "" {
		def = ch.info.BaseURL
	}
	if s.ask == nil || ch.info.NeedsKey() && ch.info.BaseURL != "" {
		if def == "" {
			return "", fmt.Errorf("--base-url: missing; provider %s needs the API root, such as http://localhost:8080/v1", ch.provider)
		}
		return def, nil
	}
	for {
		ans, err := s.ask.line(ctx, "API root (base URL)", def)
		if err != nil {
			return "", err
		}
		u, err := checkBaseURL(ans)
		if err == nil {
			return u, nil
		}
		fmt.Fprintln(s.out, " ", strings.TrimPrefix(err.Error(), "--base-url: "))
	}
}

// checkBaseURL accepts an http(s) URL with a host and no user name or
// password in it, which would land in config.yaml.
func checkBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := raw
		if err == nil {
			shown = u.Redacted()
		}
		return "", fmt.Errorf("--base-url: %q is not accepted; use an http:// or https:// URL such as http://localhost:11434/v1", shown)
	}
	if u.User != nil {
		return "", fmt.Errorf("--base-url: %q is not accepted: a user name or password in the URL would be stored in config.yaml; give the URL without it and the key with --api-key-env", u.Redacted())
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// checkName accepts a model name or key: one word of printable text.
func checkName(flag, what, v string, show bool) error {
	if v == "" {
		return fmt.Errorf("%s: empty; give the %s", flag, what)
	}
	for _, r := range v {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			if show {
				return fmt.Errorf("%s: %q is not accepted; the %s is one word without spaces or control characters", flag, v, what)
			}
			return fmt.Errorf("%s: the %s holds a space, line break or control character, which it never does; give it alone (it is not shown here)", flag, what)
		}
	}
	if len(v) > 4096 {
		return fmt.Errorf("%s: the %s is %d bytes long; at most 4096 are accepted", flag, what, len(v))
	}
	return nil
}
