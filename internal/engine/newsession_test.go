package engine_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
)

// readCounter counts the history reads of a store.
type readCounter struct {
	*sqlite.Store
	reads atomic.Int32
}

func (c *readCounter) Messages(ctx context.Context, id string) ([]session.Message, error) {
	c.reads.Add(1)
	return c.Store.Messages(ctx, id)
}

// A turn in a session it creates has no history to read back; a turn
// that continues a session reads it and sends it to the model.
func TestNewSessionReadsNoHistory(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	counter := &readCounter{Store: st}
	e := engine.New(engine.Options{
		Store:  counter,
		Models: model(srv),
		Tools:  engine.Tools{Registry: registry(t, echoTool{})},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")},
	})
	t.Cleanup(e.Close)
	ctx := context.Background()
	srv.Enqueue(llmtest.Reply{Text: "First."}, llmtest.Reply{Text: "Second."})
	first, err := e.Turn(ctx, "", engine.Input{Text: "Hello", Source: "api"}, nil)
	if err != nil || first.Final != "First." {
		t.Fatalf("first turn: %v %+v", err, first)
	}
	if n := counter.reads.Load(); n != 0 {
		t.Errorf("a turn in a new session read its history %d times", n)
	}
	second, err := e.Turn(ctx, first.SessionID, engine.Input{Text: "Again"}, nil)
	if err != nil || second.Final != "Second." {
		t.Fatalf("second turn: %v %+v", err, second)
	}
	if n := counter.reads.Load(); n < 1 {
		t.Errorf("a turn continuing a session read its history %d times", n)
	}
	if got := len(srv.Requests()[1].Messages); got != 4 {
		t.Errorf("the second turn sent %d messages, want system, the first turn's 2 and the new one", got)
	}
}
