package engine_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/metrics"
	"github.com/hermes-go/hermes/internal/observe"
)

// TestObserverSeesTheTurnsUser runs a user's turn and the owner's: the
// tokens are counted by the session's user, and "local" for the owner.
func TestObserverSeesTheTurnsUser(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "hi ana", Usage: &llm.Usage{InputTokens: 30, OutputTokens: 3}},
		llmtest.Reply{Text: "hi owner", Usage: &llm.Usage{InputTokens: 50, OutputTokens: 4}})
	st, _ := openStore(t)
	m := metrics.New()
	e := engine.New(engine.Options{
		Store:    st,
		Models:   namedModels{srv},
		Tools:    engine.Tools{Registry: registry(t)},
		Prompt:   engine.PromptSources{Home: soulHome(t, "You are hermes.")},
		Users:    map[string]*engine.User{"ana": {ID: "ana", Tenant: "acme", Memory: memory.Open(t.TempDir(), memory.Limits{})}},
		Observer: observe.New(observe.Options{Metrics: m}),
	})
	t.Cleanup(e.Close)
	if _, err := e.Turn(t.Context(), "", engine.Input{Text: "hello", User: "ana", Source: "telegram"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Turn(t.Context(), "", engine.Input{Text: "hello"}, nil); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	m.WritePrometheus(&b)
	for _, want := range []string{
		`hermes_tokens_total{model="main-model",user="ana",type="input"} 30`,
		`hermes_tokens_total{model="main-model",user="local",type="input"} 50`,
		`hermes_turns_total{source="telegram",outcome="done"} 1`,
		`hermes_turns_total{source="cli",outcome="done"} 1`,
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, b.String())
		}
	}
}
