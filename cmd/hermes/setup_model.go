package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
)

// keyVar is the variable the provider's key is kept in: the one the
// configuration names, the provider's usual one, or NAME_API_KEY for a
// server that has none (then model.api_key_env names it).
func (s *setupRun) keyVar(ch *setupChoice) string {
	if !ch.changed && s.l.Config.Model.APIKeyEnv != "" {
		return s.l.Config.Model.APIKeyEnv
	}
	if v := s.l.Config.Providers[ch.provider].APIKeyEnv; v != "" {
		return v
	}
	if len(ch.info.KeyEnv) > 0 {
		return ch.info.KeyEnv[0]
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(ch.provider) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String() + "_API_KEY"
}

// pickKey finds the key: --api-key, the variable --api-key-env names, a
// pasted one, or the one already configured.
func (s *setupRun) pickKey(ctx context.Context, ch *setupChoice) error {
	ch.keyVar = s.keyVar(ch)
	needs := ch.info.NeedsKey() || s.l.Config.Providers[ch.provider].APIKeyEnv != ""
	var have config.Resolved
	if r, err := s.l.ResolveModel(config.ModelOverride{Provider: ch.provider, BaseURL: ch.baseURL, Model: "-"}); err == nil {
		have = r
	}
	switch {
	case s.f.apiKey != "" && s.f.apiKeyEnv != "":
		return fmt.Errorf("--api-key and --api-key-env: give one of them, not both")
	case s.f.apiKey != "":
		ch.key, ch.newKey = s.f.apiKey, true
		return checkName("--api-key", "key", ch.key, false)
	case s.f.apiKeyEnv != "":
		v, _ := s.a.env(s.f.apiKeyEnv)
		if v == "" {
			return fmt.Errorf("--api-key-env: the variable %s is not set or empty; put the key in it (export %s=...) and run setup again", s.f.apiKeyEnv, s.f.apiKeyEnv)
		}
		ch.key, ch.newKey = v, true
		return checkName("--api-key-env "+s.f.apiKeyEnv, "key", v, false)
	case s.ask == nil:
		if have.APIKey == "" && needs {
			return fmt.Errorf("--api-key-env: missing; provider %s needs a key: put it in a variable and pass --api-key-env %s", ch.provider, ch.keyVar)
		}
		ch.key = string(have.APIKey)
		return nil
	}
	question := fmt.Sprintf("Paste the API key for %s (%s; it does not show as you type)", ch.provider, ch.keyVar)
	switch {
	case have.APIKey != "":
		question = fmt.Sprintf("API key for %s (Enter keeps %s, from %s; a pasted one does not show)", ch.provider, config.Redact(string(have.APIKey)), have.KeySource)
	case !needs:
		question = fmt.Sprintf("API key, if the server needs one (Enter for none; it does not show as you type)")
	}
	for {
		key, err := s.ask.secret(ctx, question)
		if err != nil {
			return err
		}
		if key == "" {
			if have.APIKey != "" || !needs {
				ch.key = string(have.APIKey)
				return nil
			}
			fmt.Fprintf(s.out, "  %s needs a key; paste it, or press Ctrl-C to stop.\n", ch.provider)
			continue
		}
		if err := checkName("the key", "key", key, false); err != nil {
			fmt.Fprintln(s.out, " ", err)
			continue
		}
		ch.key, ch.newKey = key, true
		fmt.Fprintf(s.out, "  Got a key: %s\n", config.Redact(key))
		return nil
	}
}

// pickModel lists the provider's models, lets the person pick one, and
// tests it with one call; with --skip-test nothing is called.
func (s *setupRun) pickModel(ctx context.Context, ch *setupChoice, cur current) error {
	def := s.f.model
	if def == "" && !ch.changed {
		def = cur.model
	}
	r, err := s.l.ResolveModel(config.ModelOverride{Provider: ch.provider, BaseURL: ch.baseURL, APIKey: ch.key, Model: "-"})
	if err != nil {
		return err
	}
	var probe *app.Probe
	var models []llm.ModelInfo
	if !s.f.skipTest {
		if probe, err = app.NewProbe(r); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "Asking %s for its models…\n", ch.baseURL)
		models, err = probe.Models(ctx)
		if err != nil {
			if llm.KindOf(err) == llm.ErrAuth {
				return s.refused(ch, err)
			}
			fmt.Fprintf(s.out, "  Could not list the models (%s); the model is typed instead.\n", safety.Escape(err.Error()))
		}
	}
	switch {
	case s.f.model != "":
		ch.model = s.f.model
		if err := checkName("--model", "model name", ch.model, true); err != nil {
			return err
		}
	case s.ask != nil:
		if ch.model, err = s.askModel(ctx, models, def); err != nil {
			return err
		}
	case def != "":
		ch.model = def
	default:
		return fmt.Errorf("--model: missing; name the model%s", someModels(models))
	}
	if s.f.skipTest {
		return nil
	}
	fmt.Fprintf(s.out, "Testing %s with one call…\n", ch.model)
	text, err := probe.Call(ctx, ch.model)
	if err != nil {
		if llm.KindOf(err) == llm.ErrAuth {
			return s.refused(ch, err)
		}
		return fmt.Errorf("setup: the test call to %s with model %s failed: %s\nnothing was written; check the model (--model) and the base URL (--base-url), or pass --skip-test to save without calling", ch.baseURL, ch.model, safety.Escape(err.Error()))
	}
	fmt.Fprintf(s.out, "  ✓ %s answered: %.60q\n", ch.model, strings.TrimSpace(text))
	return nil
}

// refused is the error for a key the provider turned down.
func (s *setupRun) refused(ch *setupChoice, err error) error {
	fix := "paste the right key"
	if s.f.apiKeyEnv != "" {
		fix = "put the right key in " + s.f.apiKeyEnv
	} else if s.ask == nil || s.f.apiKey != "" {
		fix = "give the right key with --api-key-env " + ch.keyVar
	}
	return fmt.Errorf("setup: %s refused the key for %s: %s\nnothing was written; %s and run hermes setup again", ch.baseURL, ch.provider, safety.Escape(err.Error()), fix)
}

// askModel shows the listed models by number and takes a number or a name.
func (s *setupRun) askModel(ctx context.Context, models []llm.ModelInfo, def string) (string, error) {
	const shown = 30
	if len(models) > 0 {
		fmt.Fprintln(s.out, "Models:")
		for i, m := range models[:min(len(models), shown)] {
			fmt.Fprintf(s.out, "  %2d) %s\n", i+1, safety.Escape(m.ID))
		}
		if len(models) > shown {
			fmt.Fprintf(s.out, "  … and %d more; type any name.\n", len(models)-shown)
		}
		if def == "" {
			def = models[0].ID
		}
	}
	for {
		ans, err := s.ask.line(ctx, "Model (number or name)", def)
		if err != nil {
			return "", err
		}
		if n, err := strconv.Atoi(ans); err == nil && n >= 1 && n <= min(len(models), shown) {
			ans = models[n-1].ID
		}
		if err := checkName("model", "model name", ans, true); err != nil {
			fmt.Fprintln(s.out, " ", err)
			continue
		}
		return ans, nil
	}
}

// someModels names a few listed models for an error message.
func someModels(models []llm.ModelInfo) string {
	if len(models) == 0 {
		return ""
	}
	var ids []string
	for _, m := range models[:min(len(models), 8)] {
		ids = append(ids, safety.Escape(m.ID))
	}
	more := ""
	if len(models) > 8 {
		more = ", ..."
	}
	return fmt.Sprintf(", one of %s%s", strings.Join(ids, ", "), more)
}
