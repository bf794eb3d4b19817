package app

import (
	"os"
	"slices"
	"sync"

	"github.com/hermes-go/hermes/internal/safety/redact"
)

// Redactor knows the values of every secret hermes holds, from the
// environment, .env and the main model's key, and of the variables the
// declared tools send as credentials (in headers, query parameters or a
// URL's user information) whatever their names, so tool results can be
// cleaned of them.
func (a *App) Redactor() *redact.Redactor {
	return redact.New(a.secretValues(a.declaredCredentials()))
}

// secretValues maps the names of hermes's secrets, and extra names, to
// their values.
func (a *App) secretValues(extra []string) map[string]string {
	l := a.Config
	secrets := map[string]string{}
	for _, name := range append(l.SecretNames(os.Environ()), extra...) {
		if v, ok := l.Env(name); ok {
			secrets[name] = v
		}
	}
	// A collector's key may be written in config.yaml itself.
	for k, v := range l.Config.Observability.OTLPHeaders {
		secrets["observability.otlp_headers."+k] = string(v)
	}
	if r, err := a.Models.Main(); err == nil {
		if k := string(r.APIKey); k != "" {
			secrets["api_key"] = k
		}
	}
	return secrets
}

// declaredCredentials names the variables the declared tools send as
// credentials; none before they are loaded.
func (a *App) declaredCredentials() []string {
	if a.Tools == nil || a.Tools.Declared == nil {
		return nil
	}
	return a.Tools.Declared.CredentialNames()
}

// liveRedactor is the App's Redactor kept in step with the declared
// tools: when a reload changes the variables they send as credentials,
// the next result is redacted with the new set.
type liveRedactor struct {
	app *App

	mu    sync.Mutex
	names []string
	r     *redact.Redactor
	built bool
}

func newLiveRedactor(a *App) *liveRedactor { return &liveRedactor{app: a} }

// Redact redacts text with the Redactor of the current declared tools.
func (l *liveRedactor) Redact(text string) string {
	names := l.app.declaredCredentials()
	l.mu.Lock()
	if !l.built || !slices.Equal(names, l.names) {
		l.r, l.names, l.built = redact.New(l.app.secretValues(names)), names, true
	}
	r := l.r
	l.mu.Unlock()
	return r.Redact(text)
}
