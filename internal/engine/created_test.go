package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/session"
)

// binding is a chat's session binding: the first session bound wins, as
// the gateway store's BindNew. The winner's call returns only once hold
// is closed, so the turn that lost runs first in the bound session.
type binding struct {
	mu   sync.Mutex
	id   string
	hold chan struct{}
}

func (b *binding) bindNew(_ context.Context, id string) (string, error) {
	b.mu.Lock()
	won := b.id == ""
	if won {
		b.id = id
	}
	bound := b.id
	b.mu.Unlock()
	if won {
		<-b.hold
	}
	return bound, nil
}

// The first two messages of a new chat reach two replicas (two engines
// on one store) at once: each turn makes a session, only one is bound,
// and the turn that lost goes on in the bound one. Here it even runs
// there first, before the winner has taken the session: the winner then
// reads what it wrote. The chat has one session holding both messages
// and both answers, the second answered with the first in its history.
// The session made and not taken is gone.
func TestNewChatOnTwoReplicasMakesOneSession(t *testing.T) {
	srv := llmtest.New(t)
	b := binding{hold: make(chan struct{})}
	var first sync.Once
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		first.Do(func() { close(b.hold) }) // the loser's turn is under way
		return llmtest.Reply{Text: fmt.Sprintf("answer to %s (%d messages seen)", r.LastUserText(), len(r.Messages)), Delay: 200 * time.Millisecond}
	})
	st, _ := openStore(t)
	replica := func(holder string) *engine.Engine {
		e := engine.New(engine.Options{Store: st, Models: model(srv), Holder: holder,
			Tools: engine.Tools{Registry: registry(t, echoTool{})}, Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")}})
		t.Cleanup(e.Close)
		return e
	}
	replicas := []*engine.Engine{replica("host-a/1"), replica("host-b/2")}
	var wg sync.WaitGroup
	results := make([]*engine.TurnResult, 2)
	errs := make([]error, 2)
	for i, e := range replicas {
		wg.Go(func() {
			results[i], errs[i] = e.Turn(context.Background(), "", engine.Input{Text: fmt.Sprintf("hello %d", i), Source: "wecom", Created: b.bindNew}, nil)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if results[i].SessionID != b.id {
			t.Errorf("turn %d ran in session %s; the chat is bound to %s", i, results[i].SessionID, b.id)
		}
	}
	all, err := st.List(context.Background(), session.ListOptions{Limit: 10})
	if err != nil || len(all) != 1 || all[0].ID != b.id {
		t.Fatalf("sessions after the first two messages: %d (%v); want the bound one only", len(all), err)
	}
	msgs, err := st.Messages(context.Background(), b.id)
	if err != nil || len(msgs) != 4 {
		t.Fatalf("the chat's session holds %d messages (%v), want 4", len(msgs), err)
	}
	for i := 0; i < 4; i += 2 {
		q, a := msgs[i], msgs[i+1]
		if q.Role != llm.RoleUser || a.Role != llm.RoleAssistant || a.Text() != fmt.Sprintf("answer to %s (%d messages seen)", q.Text(), 2+i) {
			t.Errorf("messages %d and %d: %s %q, %s %q", i, i+1, q.Role, q.Text(), a.Role, a.Text())
		}
	}
}

// A failure to record the new session ends the turn before the model is
// called, and leaves no session behind.
func TestNewSessionNotRecordedEndsTheTurn(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	e := engine.New(engine.Options{Store: st, Models: model(srv),
		Tools: engine.Tools{Registry: registry(t, echoTool{})}, Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")}})
	t.Cleanup(e.Close)
	down := errors.New("database is down")
	_, err := e.Turn(context.Background(), "", engine.Input{Text: "hello", Source: "wecom",
		Created: func(context.Context, string) (string, error) { return "", down }}, nil)
	if !errors.Is(err, down) {
		t.Fatalf("turn: %v, want the binding's error", err)
	}
	if all, _ := st.List(context.Background(), session.ListOptions{Limit: 10}); len(all) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("%d sessions left and %d model requests after a failed binding", len(all), len(srv.Requests()))
	}
}
