package gateway

import (
	"context"
	"sync"
	"testing"
	"time"
)

// memInbox is an Inbox in memory that keeps messages in the form a real
// one stores, so what survives a restart is what EncodeEvent kept.
type memInbox struct {
	mu      sync.Mutex
	next    int64
	held    map[int64][]byte
	started map[int64]bool
	plat    map[int64]string
	changed chan struct{}
}

func newMemInbox() *memInbox {
	return &memInbox{held: map[int64][]byte{}, started: map[int64]bool{}, plat: map[int64]string{}, changed: make(chan struct{}, 1000)}
}

// waitCount waits until n messages are held.
func (m *memInbox) waitCount(t *testing.T, n int) {
	t.Helper()
	for m.count() != n {
		select {
		case <-m.changed:
		case <-time.After(30 * time.Second):
			t.Fatalf("timed out waiting for %d held messages; %d are", n, m.count())
		}
	}
}

func (m *memInbox) Hold(_ context.Context, platform string, ev Event, started bool) (int64, error) {
	data, err := EncodeEvent(ev)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next++
	m.held[m.next], m.plat[m.next], m.started[m.next] = data, platform, started
	m.changed <- struct{}{}
	return m.next, nil
}

func (m *memInbox) Start(_ context.Context, id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.started[id] = true
	return nil
}

func (m *memInbox) Release(_ context.Context, id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.held, id)
	m.changed <- struct{}{}
	return nil
}

func (m *memInbox) Held(context.Context) ([]HeldEvent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []HeldEvent
	for id := int64(1); id <= m.next; id++ {
		data, ok := m.held[id]
		if !ok {
			continue
		}
		ev, lost, err := DecodeEvent(data)
		if err != nil {
			return nil, err
		}
		out = append(out, HeldEvent{ID: id, Platform: m.plat[id], Event: ev, Started: m.started[id], LostFiles: lost})
	}
	return out, nil
}

func (m *memInbox) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.held)
}

// A message waiting behind a running turn when hermes stops runs at the
// next start; the chat whose turn was cut off is told so, and that turn
// is not run again (its tools may have acted already).
func TestRunnerKeepsMessagesAcrossARestart(t *testing.T) {
	box := newMemInbox()
	queue := func(o *Options) { o.Inbox = box; o.Interrupt = false }
	h := startRunner(t, queue)
	h.say(dm, owner, "wait for it", true)
	waitFor(t, h.eng.started, "the turn to start")
	h.say(dm, owner, "and then this", true)
	// The second message is held before deliver returns; wait for it.
	box.waitCount(t, 2)
	h.stop()
	if n := box.count(); n != 2 {
		t.Fatalf("%d messages held after the stop, want 2 (the cut-off one and the waiting one)", n)
	}

	h2 := startRunner(t, queue)
	h2.p.waitUntil(t, "the notice and the answer", func(sent, _ []string) bool {
		return containsAny(sent, `hermes restarted while it was answering your message "wait for it"`) &&
			containsAny(sent, "echo: and then this")
	})
	box.waitCount(t, 0)
	h2.eng.mu.Lock()
	defer h2.eng.mu.Unlock()
	if len(h2.eng.inputs) != 1 || h2.eng.inputs[0].Text != "and then this" {
		t.Errorf("after the restart the turns were %+v; want only the waiting message's", h2.eng.inputs)
	}
}

// A held message is answered after a restart only if its sender is still
// allowed: revoking someone while hermes was down drops their message.
func TestRunnerReauthorizesHeldMessages(t *testing.T) {
	box := newMemInbox()
	if _, err := box.Hold(t.Context(), "fake", Event{ID: "9", Kind: KindMessage, Chat: Chat{ID: "7", Type: DM},
		User: stranger, Text: "let me in", Addressed: true}, false); err != nil {
		t.Fatal(err)
	}
	h := startRunner(t, func(o *Options) { o.Inbox = box; o.Pair = nil })
	box.waitCount(t, 0)
	h.stop()
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	if len(h.eng.inputs) != 0 {
		t.Errorf("a held message of someone not allowed ran: %+v", h.eng.inputs)
	}
}

func TestEventRoundTrip(t *testing.T) {
	ev := Event{ID: "42", Kind: KindMessage, Chat: Chat{ID: "-100", Type: Group, Thread: "7"}, User: owner,
		Text: "hi <b>&", Addressed: true, MessageID: "9", Media: []Media{{Kind: "photo"}}}
	data, err := EncodeEvent(ev)
	if err != nil {
		t.Fatal(err)
	}
	got, lost, err := DecodeEvent(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) != 1 || lost[0] != "photo" {
		t.Errorf("lost files %q, want the photo named", lost)
	}
	ev.Media = nil // download links expire: media is not kept
	if got.ID != ev.ID || got.Chat != ev.Chat || got.User != ev.User || got.Text != ev.Text ||
		got.Addressed != ev.Addressed || got.MessageID != ev.MessageID || got.Kind != KindMessage || got.Media != nil {
		t.Errorf("round trip: %+v, want %+v", got, ev)
	}
	if _, _, err := DecodeEvent([]byte("{")); err == nil {
		t.Error("a broken held message decoded")
	}
}

// A held message's files were not kept: after a restart the chat is asked
// for them, and a message that was only a file runs no turn.
func TestRunnerAsksForLostFiles(t *testing.T) {
	box := newMemInbox()
	photo := Media{Kind: "photo", Name: "receipt.jpg"}
	if _, err := box.Hold(t.Context(), "fake", Event{ID: "1", Kind: KindMessage, Chat: dm, User: owner, Addressed: true, Media: []Media{photo}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := box.Hold(t.Context(), "fake", Event{ID: "2", Kind: KindMessage, Chat: dm, User: owner, Text: "sum these", Addressed: true, Media: []Media{{Kind: "document", Name: "a.csv"}}}, false); err != nil {
		t.Fatal(err)
	}
	h := startRunner(t, func(o *Options) { o.Inbox = box })
	h.p.waitUntil(t, "the notices and the answer", func(sent, _ []string) bool {
		return containsAny(sent, "(receipt.jpg) were not kept") && containsAny(sent, "(a.csv) were not kept") && containsAny(sent, "echo: sum these")
	})
	box.waitCount(t, 0)
	h.stop()
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	if len(h.eng.inputs) != 1 {
		t.Errorf("%d turns, want only the one with text", len(h.eng.inputs))
	}
}

// orphans is an Inbox whose Held gives, once, the messages a dead
// replica left: what a shared inbox's Held returns after adopting them.
type orphans struct {
	*memInbox
	mu   sync.Mutex
	left []HeldEvent
}

func (o *orphans) Held(context.Context) ([]HeldEvent, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.left
	o.left = nil
	return out, nil
}

// A replica picks up, while it runs, the messages another replica held
// and left when it died: a waiting one is run, one whose turn had begun
// is answered with the notice, and neither needs a restart.
func TestRunnerAdoptsWhatADeadReplicaLeft(t *testing.T) {
	box := &orphans{memInbox: newMemInbox()}
	h := startRunner(t, func(o *Options) { o.Inbox = box; o.AdoptEvery = 10 * time.Millisecond })
	h.say(dm, owner, "hello", true)
	h.p.waitUntil(t, "the answer", func(sent, _ []string) bool { return containsAny(sent, "echo: hello") })
	box.mu.Lock()
	box.left = []HeldEvent{
		{ID: 90, Platform: "fake", Event: Event{ID: "d-1", Kind: KindMessage, Chat: dm, User: owner, Text: "left waiting", Addressed: true}},
		{ID: 91, Platform: "fake", Event: Event{ID: "d-2", Kind: KindMessage, Chat: dm, User: owner, Text: "cut off", Addressed: true}, Started: true},
	}
	box.mu.Unlock()
	h.p.waitUntil(t, "the adopted messages answered", func(sent, _ []string) bool {
		return containsAny(sent, "echo: left waiting") && containsAny(sent, `answering your message "cut off"`)
	})
}
