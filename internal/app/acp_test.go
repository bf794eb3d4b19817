package app

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
)

// TestModelChoices checks that a session may pick the main model and the
// fallbacks its provider serves, each once, and none on another
// provider, which a turn's model name could not reach.
func TestModelChoices(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, "model: {provider: custom, base_url: \"http://127.0.0.1:9/v1\", default: main-model, api_mode: chat_completions, api_key: sk-test-123456}\n"+
		"fallback_providers:\n  - {provider: custom, model: cheap-model}\n  - {provider: custom, model: main-model}\n"+
		"  - {provider: anthropic, model: claude-elsewhere}\n")
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	a := &App{Config: l, Models: newModels(l, config.ModelOverride{}, clock.Real{}, slog.New(slog.DiscardHandler))}
	if got := a.ModelChoices(); !slices.Equal(got, []string{"main-model", "cheap-model"}) {
		t.Errorf("choices = %q", got)
	}
	empty := t.TempDir()
	writeConfig(t, empty, "model: {provider: custom, api_mode: chat_completions}\n")
	l, err = config.Load(loadOptions(empty))
	if err != nil {
		t.Fatal(err)
	}
	a = &App{Config: l, Models: newModels(l, config.ModelOverride{}, clock.Real{}, slog.New(slog.DiscardHandler))}
	if got := a.ModelChoices(); got != nil {
		t.Errorf("without a model, choices = %q", got)
	}
}
