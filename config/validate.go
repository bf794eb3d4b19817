package config

import (
	"fmt"
	"sort"
	"strings"
)

// validate checks what a single value cannot: relations between settings,
// after every layer has been applied. Single values were checked as they
// were parsed. where gives the source of a key for messages.
func validate(c *Config, where func(key string) string) []error {
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
	return errs
}
