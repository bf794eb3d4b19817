package gateway

import (
	"context"
	"testing"
)

// takingInbox is a memInbox that also takes messages: the seen mark and
// the hold in one step, as gwstore does in one transaction.
type takingInbox struct {
	*memInbox
	seen map[string]bool
}

func (b *takingInbox) Take(ctx context.Context, platform string, ev Event) (int64, bool, error) {
	b.mu.Lock()
	if b.seen[platform+"/"+ev.ID] {
		b.mu.Unlock()
		return 0, false, nil
	}
	b.seen[platform+"/"+ev.ID] = true
	b.mu.Unlock()
	id, err := b.Hold(ctx, platform, ev, false)
	return id, true, err
}

// A message is taken with its seen mark and its hold together: answered
// once, its hold released after the turn; a redelivery is dropped; a
// command's hold is released at once. A message whose taker died right
// after taking it (its update confirmed, nothing run) is found held by
// the next start and answered, and its redelivery is still dropped.
func TestRunnerTakesMessagesWithTheirHold(t *testing.T) {
	box := &takingInbox{memInbox: newMemInbox(), seen: map[string]bool{}}
	// The process that took "77" died before doing anything with it.
	if _, first, err := box.Take(t.Context(), "fake", Event{ID: "77", Kind: KindMessage, Chat: dm, User: owner, Text: "left behind", Addressed: true}); err != nil || !first {
		t.Fatal(first, err)
	}
	h := startRunner(t, func(o *Options) { o.Inbox = box })
	h.p.waitUntil(t, "the message left behind answered", func(sent, _ []string) bool { return containsAny(sent, "echo: left behind") })
	h.p.events <- Event{ID: "77", Kind: KindMessage, Chat: dm, User: owner, Text: "left behind", Addressed: true}

	ev := h.say(dm, owner, "hello", true)
	h.p.waitUntil(t, "the answer", func(sent, _ []string) bool { return containsAny(sent, "echo: hello") })
	h.p.events <- ev // redelivered
	h.say(dm, owner, "/help", true)
	h.p.waitUntil(t, "the help", func(sent, _ []string) bool { return containsAny(sent, "/new") })
	h.say(dm, owner, "last", true)
	h.p.waitUntil(t, "the last answer", func(sent, _ []string) bool { return containsAny(sent, "echo: last") })
	box.waitCount(t, 0)
	h.stop()
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	var texts []string
	for _, in := range h.eng.inputs {
		texts = append(texts, in.Text)
	}
	if len(texts) != 3 || texts[0] != "left behind" || texts[1] != "hello" || texts[2] != "last" {
		t.Errorf("turns ran for %q; want each message once", texts)
	}
}
