package app

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
)

// Chats name models (/model), so the models kept built stay bounded
// however many names arrive, and the main one is kept through it.
func TestModelsStayBounded(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, "model: {base_url: \"http://127.0.0.1:9/v1\", default: main-model, api_mode: chat_completions, api_key: sk-test-123456}\n")
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	m := newModels(l, config.ModelOverride{}, clock.Real{}, slog.New(slog.DiscardHandler))
	if _, err := m.Model(""); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if _, err := m.Model(fmt.Sprintf("model-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	m.mu.Lock()
	n, main := len(m.built), m.built[""]
	m.mu.Unlock()
	if n > maxBuiltModels {
		t.Errorf("%d models kept after 1,000 names, want at most %d", n, maxBuiltModels)
	}
	if main.model.Name != "main-model" {
		t.Errorf("the main model was dropped: %+v", main)
	}
}
