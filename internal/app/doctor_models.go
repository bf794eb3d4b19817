package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/doctor"
	"github.com/hermes-go/hermes/internal/llm"
)

// providerCallTimeout bounds the one small completion asked of each
// provider.
const providerCallTimeout = 20 * time.Second

// providerChecks check the main model and every fallback provider, each
// with one tiny completion unless offline. Every check shows the key as
// config.Redact does (its first three and last four characters at most).
func providerChecks(l *config.Loaded, o DoctorOptions) []doctor.Check {
	checks := []doctor.Check{{Name: "provider", Timeout: providerCallTimeout + time.Second, Run: func(ctx context.Context) []doctor.Result {
		r, err := l.ResolveModel(config.ModelOverride{})
		if err != nil {
			return []doctor.Result{doctor.Problem("provider", doctor.Fail, resolveFix(l, err), "the main model is not usable: %v", err)}
		}
		return []doctor.Result{callProvider(ctx, l, "provider", r, o.Offline)}
	}}}
	fbs, err := l.ResolveFallbacks()
	if err != nil {
		checks = append(checks, doctor.Check{Name: "fallbacks", Run: func(context.Context) []doctor.Result {
			return []doctor.Result{doctor.Problem("fallbacks", doctor.Fail, resolveFix(l, err), "%v", err)}
		}})
	}
	for i, fb := range fbs {
		name := fmt.Sprintf("fallback %d: %s", i+1, fb.Provider)
		checks = append(checks, doctor.Check{Name: name, Timeout: providerCallTimeout + time.Second, Run: func(ctx context.Context) []doctor.Result {
			return []doctor.Result{callProvider(ctx, l, name, fb, o.Offline)}
		}})
	}
	return checks
}

// callProvider asks r's model for a one-word reply, without retries or
// fallbacks, so that the finding is about this provider alone.
func callProvider(ctx context.Context, l *config.Loaded, name string, r config.Resolved, offline bool) doctor.Result {
	what := fmt.Sprintf("%s model %s at %s (key %s)", r.Provider, r.Model, r.BaseURL, keyText(r))
	if offline {
		return doctor.Okf(name, "%s (not called: --offline)", what)
	}
	p, err := NewProvider(r)
	if err != nil {
		return doctor.Problem(name, doctor.Fail, "hermes config set model.api_mode chat_completions", "%s cannot be called — %v", what, err)
	}
	ctx, cancel := context.WithTimeout(ctx, providerCallTimeout)
	defer cancel()
	start := time.Now()
	_, err = llm.Generate(ctx, p, &llm.Request{Model: r.Model, MaxTokens: 16, NoStream: true,
		Messages: []llm.Message{llm.UserMessage("Reply with the word OK.")}})
	if err != nil {
		return doctor.Problem(name, doctor.Fail, callFix(l, r, err), "%s did not answer — %v", what, err)
	}
	return doctor.Okf(name, "%s answered in %d ms", what, time.Since(start).Milliseconds())
}

// keyText is the key as the report may show it, and where it came from.
func keyText(r config.Resolved) string {
	if r.APIKey == "" {
		return "none"
	}
	if r.KeySource == "" {
		return config.Redact(string(r.APIKey))
	}
	return config.Redact(string(r.APIKey)) + " from " + r.KeySource
}

// callFix is the command that addresses a failed call: a new key for a
// refused one, the base URL for an unreachable provider, the model name
// for an unknown one; otherwise the call to try again by hand.
func callFix(l *config.Loaded, r config.Resolved, err error) string {
	var le *llm.Error
	kind := llm.ErrorKind("")
	if errors.As(err, &le) {
		kind = le.Kind
	}
	switch kind {
	case llm.ErrAuth:
		return "${EDITOR:-vi} " + doctor.ShellQuote(l.Paths.EnvFile) + " (replace " + keyVar(r) + " with a valid key)"
	case llm.ErrNotFound:
		return "hermes model list --provider " + doctor.ShellQuote(r.Provider)
	case llm.ErrNetwork:
		return "hermes config set " + providerKey(l, r) + ".base_url http://HOST:PORT/v1"
	}
	return "hermes model call --provider " + doctor.ShellQuote(r.Provider) + " --model " + doctor.ShellQuote(r.Model) + " hello"
}

// providerKey is the config key that holds r's endpoint: the provider's
// section when it is defined under providers, else model.
func providerKey(l *config.Loaded, r config.Resolved) string {
	if _, ok := l.Config.Providers[r.Provider]; ok {
		return "providers." + r.Provider
	}
	return "model"
}

// keyVar names the variable r's key came from ("env OPENAI_API_KEY",
// ".env:3 OPENAI_API_KEY"), or the provider's key variable.
func keyVar(r config.Resolved) string {
	if f := strings.Fields(r.KeySource); len(f) > 0 {
		return f[len(f)-1]
	}
	return "the key of " + r.Provider
}

// resolveFix is the command a resolution error names ("…, or run: hermes
// config set …"), else the command that shows every problem of the model
// configuration.
func resolveFix(l *config.Loaded, err error) string {
	msg := err.Error()
	if _, cmd, ok := strings.Cut(msg, "run: "); ok {
		if line, _, _ := strings.Cut(cmd, "\n"); line != "" {
			return line
		}
	}
	if strings.Contains(msg, "needs an API key") {
		return "${EDITOR:-vi} " + doctor.ShellQuote(l.Paths.EnvFile) + " (add the key the finding names)"
	}
	return "hermes config check"
}
