package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// validate checks what a single value cannot: relations between settings,
// after every layer has been applied. Single values were checked as they
// were parsed. where gives the source of a key for messages.
func validate(c *Config, where func(key string) string) []error {
	hermesValues(c)
	var errs []error
	if p := c.Model.Provider; !isAuto(p) && !c.knownProvider(p) {
		errs = append(errs, badValue(where("model.provider"), "model.provider", p,
			"is not accepted; use auto, one of "+providerNames()+", or a name defined under providers"))
	}
	for i, fb := range c.FallbackProviders {
		key := fmt.Sprintf("fallback_providers[%d].provider", i)
		switch {
		case fb.Provider == "":
			errs = append(errs, badValue(where(key), key, "", "is not accepted; every fallback needs a provider, as in {provider: openrouter, model: NAME}"))
		case isAuto(fb.Provider) || !c.knownProvider(fb.Provider):
			errs = append(errs, badValue(where(key), key, fb.Provider,
				"is not accepted; use one of "+providerNames()+", or a name defined under providers"))
		}
	}
	names := make([]string, 0, len(c.Providers))
	for name := range c.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := c.Providers[name]
		switch {
		case isAuto(name) || strings.ContainsAny(name, ".[] "):
			errs = append(errs, badValue(where("providers"), "providers", name, "is not accepted as a provider name; use letters, digits, \"-\" and \"_\""))
		case p.BaseURL == "":
			if _, ok := LookupProvider(name); !ok {
				key := "providers." + name + ".base_url"
				errs = append(errs, badValue(where(key), key, "", "is not accepted; a provider that is not built in needs a base_url"))
			}
		}
	}
	if m := c.Memory.LongTerm.MinMargin; m < 0 || m > 1 {
		key := "memory.long_term.min_margin"
		errs = append(errs, badValue(where(key), key, fmt.Sprint(m), "is not accepted; use a cosine margin from 0 to 1 (0: the default, 0.35)"))
	}
	errs = append(errs, validateGateway(&c.Gateway, where)...)
	errs = append(errs, validateAPI(&c.API, where)...)
	errs = append(errs, validateDelegation(c, where)...)
	errs = append(errs, validateAgents(c, where)...)
	errs = append(errs, validateTeams(c, where)...)
	errs = append(errs, validateHooks(c, where)...)
	errs = append(errs, validateKB(c, where)...)
	errs = append(errs, validateObservability(c, where)...)
	errs = append(errs, validateUsers(c, where)...)
	errs = append(errs, validateLogging(c, where)...)
	errs = append(errs, validateStorage(c, where)...)
	errs = append(errs, validateCurator(c, where)...)
	return errs
}

// validateGateway checks the gateway section's ranges.
func validateGateway(g *Gateway, where func(key string) string) []error {
	var errs []error
	if h := g.Reset.AtHour; h > 23 {
		errs = append(errs, badValue(where("gateway.reset.at_hour"), "gateway.reset.at_hour", fmt.Sprint(h), "is not accepted; use an hour from 0 to 23"))
	}
	if g.Reset.Mode == ResetIdle && g.Reset.IdleMinutes == 0 {
		errs = append(errs, badValue(where("gateway.reset.idle_minutes"), "gateway.reset.idle_minutes", "0", "is not accepted with mode idle; use the minutes of silence after which a chat starts afresh"))
	}
	errs = append(errs, validateEmail(&g.Email, where)...)
	errs = append(errs, validateDiscord(&g.Discord, where)...)
	errs = append(errs, validateMatrix(g.Matrix, where)...)
	paths := map[string]string{}
	if hook := g.Telegram.Webhook.URL; hook != "" {
		if u, err := url.Parse(hook); err == nil && u.Path != "" && u.Path != "/" {
			paths[u.Path] = "gateway.telegram.webhook.url"
		} else {
			errs = append(errs, badValue(where("gateway.telegram.webhook.url"), "gateway.telegram.webhook.url", hook, "is not accepted; give the https URL Telegram posts to, with the path hermes answers on, like https://bot.example.com/telegram"))
		}
	}
	errs = append(errs, validateDingTalk(g, where)...)
	errs = append(errs, validateFeishu(g.Feishu, paths, where)...)
	errs = append(errs, validateSlack(&g.Slack, paths, where)...)
	for _, name := range slices.Sorted(maps.Keys(g.Webhook.Routes)) {
		rt, key := g.Webhook.Routes[name], "gateway.webhook.routes."+name
		if other, taken := paths[rt.Path]; taken {
			errs = append(errs, badValue(where(key+".path"), key+".path", rt.Path, "is not accepted; "+other+" answers on that path already"))
		}
		paths[rt.Path] = key + ".path"
		switch {
		case !strings.HasPrefix(rt.Path, "/"):
			errs = append(errs, badValue(where(key+".path"), key+".path", rt.Path, "is not accepted; use a URL path starting with /, like /hooks/github"))
		case rt.Auth == "":
			errs = append(errs, badValue(where(key+".auth"), key+".auth", "", "is not accepted; every route checks its callers: use github, standard or bearer"))
		case rt.Secret == "":
			errs = append(errs, badValue(where(key+".secret"), key+".secret", "", "is not accepted; a route needs its secret (usually ${VAR} from .env)"))
		case strings.TrimSpace(rt.Prompt) == "":
			errs = append(errs, badValue(where(key+".prompt"), key+".prompt", "", "is not accepted; say what hermes should do with the payload"))
		}
	}
	errs = append(errs, validateWeCom(g, where)...)
	return errs
}
