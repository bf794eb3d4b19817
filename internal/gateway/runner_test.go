package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/slash"
)

// chatPlatform is a platform in memory: tests push events in and read
// what hermes sent.
type chatPlatform struct {
	events  chan Event
	mu      sync.Mutex
	sent    []string // by message id
	answers []string
	changed chan struct{}
	refused map[string]bool // event ids whose deliver failed
	typing  int
}

func newChatPlatform() *chatPlatform {
	return &chatPlatform{events: make(chan Event), changed: make(chan struct{}, 1000), refused: map[string]bool{}}
}

func (f *chatPlatform) Name() string { return "fake" }
func (f *chatPlatform) Caps() Caps {
	return Caps{MaxText: 4096, CanEdit: true, Buttons: true, MaxButtonData: 64}
}

func (f *chatPlatform) Receive(ctx context.Context, deliver func(context.Context, Event) error) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-f.events:
			if err := deliver(ctx, ev); err != nil {
				f.mu.Lock()
				f.refused[ev.ID] = true
				f.mu.Unlock()
				f.changed <- struct{}{}
			}
		}
	}
}

func (f *chatPlatform) Send(_ context.Context, _ Chat, m Outgoing) (MessageRef, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, m.Text+buttonsOf(m))
	f.changed <- struct{}{}
	return MessageRef{ID: fmt.Sprint(len(f.sent) - 1)}, nil
}

func buttonsOf(m Outgoing) string {
	var b strings.Builder
	for _, row := range m.Buttons {
		for _, btn := range row {
			b.WriteString(" [" + btn.Text + "=" + btn.Data + "]")
		}
	}
	return b.String()
}

func (f *chatPlatform) Edit(_ context.Context, ref MessageRef, m Outgoing) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var i int
	fmt.Sscan(ref.ID, &i)
	f.sent[i] = m.Text + buttonsOf(m)
	f.changed <- struct{}{}
	return nil
}

func (f *chatPlatform) Answer(_ context.Context, _ Event, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, text)
	f.changed <- struct{}{}
	return nil
}

func (f *chatPlatform) Typing(context.Context, Chat) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.typing++
	f.changed <- struct{}{}
	return nil
}

// waitUntil waits for the platform to show what cond looks for.
func (f *chatPlatform) waitUntil(t *testing.T, what string, cond func(sent, answers []string) bool) {
	t.Helper()
	for {
		f.mu.Lock()
		ok := cond(append([]string(nil), f.sent...), append([]string(nil), f.answers...))
		f.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-f.changed:
		case <-time.After(30 * time.Second):
			f.mu.Lock()
			defer f.mu.Unlock()
			t.Fatalf("timed out waiting for %s; sent %q", what, f.sent)
		}
	}
}

func containsAny(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// fakeEngine answers "echo: TEXT"; a text starting with "wait" runs until
// stopped, one starting with "rm" asks for approval first.
type fakeEngine struct {
	mu      sync.Mutex
	inputs  []engine.Input
	ids     []string
	started chan struct{} // a turn that waits has begun
}

func (e *fakeEngine) Turn(ctx context.Context, sessionID string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error) {
	e.mu.Lock()
	e.inputs = append(e.inputs, in)
	e.ids = append(e.ids, sessionID)
	n := len(e.inputs)
	e.mu.Unlock()
	if sessionID == "" {
		sessionID = fmt.Sprint("s", n)
	}
	if strings.HasPrefix(in.Text, "compact") {
		sessionID += "-child" // compression continued the session in a child
	}
	res := &agent.Result{Stopped: agent.StopDone}
	switch {
	case strings.HasPrefix(in.Text, "wait"):
		e.started <- struct{}{}
		<-ctx.Done()
		sink.Event(agent.Event{Kind: agent.EventText, Text: "stopped"})
		res.Stopped = agent.StopInterrupted
	case strings.HasPrefix(in.Text, "tool"):
		sink.Event(agent.Event{Kind: agent.EventText, Text: "let me look"})
		sink.Event(agent.Event{Kind: agent.EventToolStarted})
		sink.Event(agent.Event{Kind: agent.EventText, Text: "found it"})
	case strings.HasPrefix(in.Text, "rm"):
		ans, _ := in.Approval.Prompter.Prompt(ctx, request(in.Text))
		sink.Event(agent.Event{Kind: agent.EventText, Text: "approval: " + ans.String()})
	default:
		sink.Event(agent.Event{Kind: agent.EventText, Text: "echo: "})
		sink.Event(agent.Event{Kind: agent.EventText, Text: in.Text})
	}
	sink.Event(agent.Event{Kind: agent.EventDone})
	return &engine.TurnResult{SessionID: sessionID, Result: res}, nil
}

type harness struct {
	p      *chatPlatform
	eng    *fakeEngine
	bound  map[string]string
	seen   map[string]bool
	paired map[string]bool
	mu     sync.Mutex
	// stop ends the runner and waits for it (once).
	stop func()
}

// startRunner runs a gateway over a fake platform and engine until the
// test ends; each of more changes its options first.
func startRunner(t *testing.T, more ...func(*Options)) *harness {
	h := &harness{p: newChatPlatform(), eng: &fakeEngine{started: make(chan struct{}, 1)}, bound: map[string]string{}, seen: map[string]bool{}, paired: map[string]bool{"1": true}}
	reg := slash.Registry{Skills: func() []slash.Command { return []slash.Command{{Name: "tidy", Description: "tidy up"}} }}
	opt := Options{
		Engine: h.eng, Platforms: []Platform{h.p}, RequireMention: true, GroupSessionsPerUser: true, Commands: &reg,
		Skill: func(name, instruction string) (string, error) { return "SKILL " + name + ": " + instruction, nil },
		Seen: func(_ context.Context, platform, id string) (bool, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if id == "broken" {
				return false, errors.New("database is locked")
			}
			first := !h.seen[platform+id]
			h.seen[platform+id] = true
			return first, nil
		},
		Authorize: func(_ context.Context, _ string, u User) (bool, string, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.paired[u.ID], "paired", nil
		},
		Pair: func(context.Context, string, User) (string, error) { return "ABCD2345", nil },
		Resolve: func(_ context.Context, key string) (string, bool, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.bound[key], false, nil
		},
		Bind: func(_ context.Context, key, id string) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.bound[key] = id
			return nil
		},
	}
	for _, f := range more {
		f(&opt)
	}
	r := New(opt)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	h.stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(h.stop)
	return h
}

var nextID int

func (h *harness) say(chat Chat, user User, text string, addressed bool) Event {
	nextID++
	ev := Event{ID: fmt.Sprint(nextID), Kind: KindMessage, Chat: chat, User: user, Text: text, Addressed: addressed || chat.Type == DM}
	h.p.events <- ev
	return ev
}

var dm = Chat{ID: "1", Type: DM}

func TestRunnerAnswersAndKeepsTheSession(t *testing.T) {
	h := startRunner(t)
	h.say(dm, owner, "hello", true)
	h.p.waitUntil(t, "the answer", func(sent, _ []string) bool { return containsAny(sent, "echo: hello") })
	h.say(dm, owner, "compact me", true)
	h.p.waitUntil(t, "the second answer", func(sent, _ []string) bool { return containsAny(sent, "echo: compact me") })
	h.say(dm, owner, "again", true)
	h.p.waitUntil(t, "the third answer", func(sent, _ []string) bool { return containsAny(sent, "echo: again") })
	// Each turn shows the typing indicator at least once.
	h.p.waitUntil(t, "typing in every turn", func([]string, []string) bool { return h.p.typing >= 3 })
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	if len(h.eng.ids) != 3 || h.eng.ids[0] != "" || h.eng.ids[1] != "s1" || h.eng.ids[2] != "s1-child" || h.eng.inputs[0].Source != "fake" {
		t.Errorf("turns ran in sessions %q with %+v; want a new one, s1, then the child compression made", h.eng.ids, h.eng.inputs)
	}
}

// A new chat's turn records its session with BindNew as the session is
// made (so two replicas answering a chat's first messages at once agree
// on one), under the chat's key; a turn of a chat with a session does
// not bind again.
func TestRunnerBindsANewChatsSessionAsItIsMade(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	h := startRunner(t, func(o *Options) {
		o.BindNew = func(_ context.Context, key, id string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, key+"="+id)
			return "bound-elsewhere", nil
		}
	})
	h.say(dm, owner, "hello", true)
	h.p.waitUntil(t, "the answer", func(sent, _ []string) bool { return containsAny(sent, "echo: hello") })
	h.say(dm, owner, "again", true)
	h.p.waitUntil(t, "the second answer", func(sent, _ []string) bool { return containsAny(sent, "echo: again") })
	h.eng.mu.Lock()
	first, second := h.eng.inputs[0], h.eng.inputs[1]
	h.eng.mu.Unlock()
	if first.Created == nil || second.Created != nil {
		t.Fatalf("Created set on the new chat's turn: %v; on the next: %v", first.Created != nil, second.Created != nil)
	}
	got, err := first.Created(context.Background(), "made-1")
	var key string
	h.mu.Lock()
	for k := range h.bound {
		key = k
	}
	h.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if err != nil || got != "bound-elsewhere" || len(calls) != 1 || calls[0] != key+"=made-1" {
		t.Fatalf("Created returned %q, %v after BindNew calls %q; the chat's key is %q", got, err, calls, key)
	}
}

// A redelivered event is answered once; one whose id could not be
// recorded is not taken, so the platform offers it again.
func TestRunnerDedupes(t *testing.T) {
	h := startRunner(t)
	ev := h.say(dm, owner, "once", true)
	h.p.events <- ev
	h.p.events <- Event{ID: "broken", Kind: KindMessage, Chat: dm, User: owner, Text: "lost?"}
	// waitUntil holds the platform's lock while it asks.
	h.p.waitUntil(t, "the refused event", func([]string, []string) bool { return h.p.refused["broken"] })
	h.say(dm, owner, "last", true)
	h.p.waitUntil(t, "the last answer", func(sent, _ []string) bool { return containsAny(sent, "echo: last") })
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	if len(h.eng.inputs) != 2 {
		t.Errorf("%d turns for a message delivered twice, one refused and one more; want 2", len(h.eng.inputs))
	}
}

// Someone unknown gets a pairing code in a direct message and nothing in
// a group; a group message not addressed to hermes is left alone.
func TestRunnerStrangersAndGroups(t *testing.T) {
	h := startRunner(t)
	group := Chat{ID: "-5", Type: Group}
	h.say(group, stranger, "hello bot", true)
	h.say(group, owner, "just chatting", false)
	h.say(Chat{ID: "2", Type: DM}, stranger, "hi", true)
	h.p.waitUntil(t, "the pairing code", func(sent, _ []string) bool { return containsAny(sent, "hermes pairing approve fake ABCD2345") })
	h.say(group, owner, "@bot hi", true)
	h.p.waitUntil(t, "the group answer", func(sent, _ []string) bool { return containsAny(sent, "echo: @bot hi") })
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	if len(h.eng.inputs) != 1 {
		t.Errorf("%d turns ran; want only the one addressed by someone allowed", len(h.eng.inputs))
	}
}

func TestRunnerStop(t *testing.T) {
	h := startRunner(t)
	h.say(dm, owner, "wait for it", true)
	waitFor(t, h.eng.started, "the turn to start")
	h.say(dm, owner, "/stop", true)
	h.p.waitUntil(t, "the stopped turn", func(sent, _ []string) bool { return containsAny(sent, "stopped") })
}

// A dangerous command asks the chat; the owner's press answers it and the
// turn goes on.
func TestRunnerApprovalInTheChat(t *testing.T) {
	h := startRunner(t)
	h.say(dm, owner, "rm -rf build", true)
	var data string
	h.p.waitUntil(t, "the approval request", func(sent, _ []string) bool {
		for _, s := range sent {
			if i := strings.Index(s, "[Allow once="); i >= 0 {
				data, _, _ = strings.Cut(s[i+len("[Allow once="):], "]")
				return true
			}
		}
		return false
	})
	h.p.events <- Event{ID: "press-1", Kind: KindButton, Chat: dm, User: owner, Data: data}
	h.p.waitUntil(t, "the turn after approval", func(sent, answers []string) bool {
		return containsAny(sent, "approval: once") && containsAny(sent, "Allowed (once) by owner") && len(answers) == 1
	})
}

// Commands answer at once: /help lists the chat's commands, /skills the
// skills, a skill runs as a turn with its message, and a command not
// offered in chats says so.
func TestRunnerCommands(t *testing.T) {
	h := startRunner(t)
	h.say(dm, owner, "/help", true)
	h.p.waitUntil(t, "the help", func(sent, _ []string) bool { return containsAny(sent, "/approve [session|always] — ") })
	h.say(dm, owner, "/whoami", true)
	h.p.waitUntil(t, "whoami", func(sent, _ []string) bool { return containsAny(sent, "You are owner (id 1) on fake; allowed: true") })
	h.say(dm, owner, "/exit", true)
	h.p.waitUntil(t, "the refusal", func(sent, _ []string) bool { return containsAny(sent, "/exit is not a command or a skill here") })
	h.say(dm, owner, "/skills", true)
	h.p.waitUntil(t, "the skills", func(sent, _ []string) bool { return containsAny(sent, "/tidy [instruction] — tidy up") })
	h.say(dm, owner, "/tidy the pdfs", true)
	h.p.waitUntil(t, "the skill's turn", func(sent, _ []string) bool { return containsAny(sent, "echo: SKILL tidy: the pdfs") })
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	if len(h.eng.inputs) != 1 {
		t.Errorf("%d turns ran; want only the skill's", len(h.eng.inputs))
	}
}
