package app

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// memPlatform is a platform in memory for the wiring test.
type memPlatform struct {
	in   chan gateway.Event
	mu   sync.Mutex
	sent map[string]string // message id → text
	ch   chan struct{}
}

func (m *memPlatform) Name() string { return "telegram" }
func (m *memPlatform) Caps() gateway.Caps {
	return gateway.Caps{MaxText: 4096, CanEdit: true, Buttons: true, MaxButtonData: 64}
}
func (m *memPlatform) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-m.in:
			deliver(ctx, ev)
		}
	}
}
func (m *memPlatform) Send(_ context.Context, _ gateway.Chat, o gateway.Outgoing) (gateway.MessageRef, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := string(rune('a' + len(m.sent)))
	m.sent[id] = o.Text
	m.ch <- struct{}{}
	return gateway.MessageRef{ID: id}, nil
}
func (m *memPlatform) Edit(_ context.Context, ref gateway.MessageRef, o gateway.Outgoing) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent[ref.ID] = o.Text
	m.ch <- struct{}{}
	return nil
}
func (m *memPlatform) Answer(context.Context, gateway.Event, string) error { return nil }
func (m *memPlatform) Typing(context.Context, gateway.Chat) error          { return nil }

// wait waits until a message in the chat holds want, or one of its
// alternatives.
func (m *memPlatform) wait(t *testing.T, want string, or ...string) {
	t.Helper()
	for {
		m.mu.Lock()
		for _, s := range m.sent {
			for _, w := range append([]string{want}, or...) {
				if strings.Contains(s, w) {
					m.mu.Unlock()
					return
				}
			}
		}
		m.mu.Unlock()
		select {
		case <-m.ch:
		case <-time.After(30 * time.Second):
			m.mu.Lock()
			defer m.mu.Unlock()
			t.Fatalf("%q never reached the chat: %q", want, m.sent)
		}
	}
}

// The gateway as app assembles it: someone on the allowlist is answered
// by the model, in one session across messages; a stranger gets a code
// from the real pairing store.
func TestGatewayRunnerWiring(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "first answer"}, llmtest.Reply{Text: "second answer"})
	home := t.TempDir()
	writeConfig(t, home, `model: {base_url: "`+srv.URL()+`/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway: {telegram: {allow: ["7"]}}
`)
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Config: l})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p := &memPlatform{in: make(chan gateway.Event), sent: map[string]string{}, ch: make(chan struct{}, 100)}
	r, err := a.GatewayRunner([]gateway.Platform{p})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	me := gateway.User{ID: "7", Name: "me"}
	dm := gateway.Chat{ID: "7", Type: gateway.DM}
	p.in <- gateway.Event{ID: "1", Kind: gateway.KindMessage, Chat: dm, User: me, Text: "hello", Addressed: true}
	p.wait(t, "first answer")
	p.in <- gateway.Event{ID: "1", Kind: gateway.KindMessage, Chat: dm, User: me, Text: "hello", Addressed: true} // redelivered
	p.in <- gateway.Event{ID: "2", Kind: gateway.KindMessage, Chat: dm, User: me, Text: "more", Addressed: true}
	p.wait(t, "second answer")
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].Messages) < 4 {
		t.Errorf("%d model calls, the second with %d messages; want 2, the second continuing the session", len(reqs), len(reqs[1].Messages))
	}
	p.in <- gateway.Event{ID: "u", Kind: gateway.KindMessage, Chat: dm, User: me, Text: "/usage", Addressed: true}
	p.wait(t, "read from cache")
	p.in <- gateway.Event{ID: "c", Kind: gateway.KindMessage, Chat: dm, User: me, Text: "/compress", Addressed: true}
	// A message that interrupted the first turn's end can leave the
	// session just long enough to compress.
	p.wait(t, "too short to compress", "Compressed ~")
	p.in <- gateway.Event{ID: "3", Kind: gateway.KindMessage, Chat: gateway.Chat{ID: "9", Type: gateway.DM}, User: gateway.User{ID: "9"}, Text: "hi", Addressed: true}
	p.wait(t, "hermes pairing approve telegram ")
	pairs, err := a.Gateway.ListPairings(context.Background())
	if err != nil || len(pairs.Pending) != 1 || pairs.Pending[0].User != "9" {
		t.Errorf("pending pairings %+v, %v", pairs, err)
	}
}
