package config

import (
	"sort"
	"strings"
)

// SecretNames lists the environment variables that may hold hermes's own
// secrets: every variable defined in .env, every provider's API key
// variable (built-in and configured), and any variable whose name says it
// is a key, token, secret or password. Commands hermes runs for the model
// get an environment without them, so a tool cannot read a key hermes was
// trusted with and show it to the model.
func (l *Loaded) SecretNames(environ []string) []string {
	set := map[string]bool{}
	if l.env != nil {
		for name := range l.env.dotenv {
			set[name] = true
		}
	}
	for _, p := range BuiltinProviders() {
		for _, k := range p.KeyEnv {
			set[k] = true
		}
	}
	for _, p := range l.Config.Providers {
		if p.APIKeyEnv != "" {
			set[p.APIKeyEnv] = true
		}
	}
	if k := l.Config.Model.APIKeyEnv; k != "" {
		set[k] = true
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if looksSecretName(name) {
			set[name] = true
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// looksSecretName reports whether a variable's name says it holds a
// credential.
func looksSecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}
