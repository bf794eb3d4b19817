package gateway

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
)

// draftPlatform is a chat platform that shows drafts in DMs and records
// them beside the messages, in one order.
type draftPlatform struct {
	*chatPlatform
	fail    bool
	mu      sync.Mutex
	drafts  []string
	order   []string // "draft:TEXT" and "send:TEXT"
	ids     map[int64]bool
	release chan struct{} // when set, each draft waits for it
	shown   chan string
}

// waitDraft waits for a draft holding want.
func (d *draftPlatform) waitDraft(t *testing.T, want string) {
	t.Helper()
	for {
		select {
		case text := <-d.shown:
			if strings.Contains(text, want) {
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no draft holds %q", want)
		}
	}
}

func (d *draftPlatform) Drafts(chat Chat) bool { return chat.Type == DM }

func (d *draftPlatform) Draft(_ context.Context, _ Chat, id int64, text string) error {
	if d.release != nil {
		<-d.release
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail {
		return errors.New("TEXTDRAFT_PEER_INVALID")
	}
	d.drafts = append(d.drafts, text)
	d.order = append(d.order, "draft:"+text)
	d.ids[id] = true
	if d.shown != nil {
		d.shown <- text
	}
	return nil
}

func (d *draftPlatform) Send(ctx context.Context, chat Chat, m Outgoing) (MessageRef, error) {
	d.mu.Lock()
	d.order = append(d.order, "send:"+m.Text)
	d.mu.Unlock()
	return d.chatPlatform.Send(ctx, chat, m)
}

// A stream with drafts shows the text growing as drafts, sends each step
// as one message when it ends, never edits, and shows no draft after the
// message that ends its step.
func TestStreamDrafts(t *testing.T) {
	p := &draftPlatform{chatPlatform: newChatPlatform(), ids: map[int64]bool{}, shown: make(chan string, 100)}
	d := draftsFor(context.Background(), p, dm, Caps{MaxText: 4096})
	if d == nil {
		t.Fatal("no drafts for a DM of a Drafter")
	}
	if draftsFor(context.Background(), p, Chat{ID: "-1", Type: Group}, Caps{MaxText: 4096}) != nil ||
		draftsFor(context.Background(), p, dm, Caps{MaxText: 4096, FinalOnly: true}) != nil ||
		draftsFor(context.Background(), newChatPlatform(), dm, Caps{MaxText: 4096}) != nil {
		t.Error("drafts where they cannot or should not be shown")
	}
	d.every = time.Millisecond
	var edits int
	s := &replyStream{ctx: context.Background(), drafts: d,
		split: func(s string) []string { return Split(s, 4096, nil) },
		send:  func(ctx context.Context, m Outgoing) (MessageRef, error) { return p.Send(ctx, dm, m) },
		edit:  func(context.Context, MessageRef, Outgoing) error { edits++; return nil }}
	words := strings.Fields("the logs on host one were rotated and compressed")
	for _, w := range words {
		s.Event(agent.Event{Kind: agent.EventText, Text: w + " "})
	}
	// The newest text is shown, however many deltas it skipped.
	p.waitDraft(t, "rotated and compressed")
	s.Event(agent.Event{Kind: agent.EventToolStarted})
	s.Event(agent.Event{Kind: agent.EventText, Text: "done."})
	s.Event(agent.Event{Kind: agent.EventDone})
	p.mu.Lock()
	defer p.mu.Unlock()
	if edits != 0 || len(p.drafts) == 0 || len(p.ids) != 1 {
		t.Fatalf("%d edits, drafts %q with %d ids; want drafts under one id and no edits", edits, p.drafts, len(p.ids))
	}
	sends := 0
	for i, o := range p.order {
		if strings.HasPrefix(o, "send:") {
			sends++
			continue
		}
		// A draft never follows the message of its own step.
		if sends == 1 && strings.HasPrefix(o, "draft:the logs") || i > 0 && sends == 2 {
			t.Errorf("a draft after its step's message: %q", p.order)
		}
	}
	if sends != 2 || p.order[len(p.order)-1] != "send:done." {
		t.Errorf("order %q; want the two steps sent, the last one last", p.order)
	}
}

// A draft the platform refuses turns drafts off; the reply still goes as
// messages.
func TestStreamDraftsFailing(t *testing.T) {
	p := &draftPlatform{chatPlatform: newChatPlatform(), ids: map[int64]bool{}, fail: true}
	d := draftsFor(context.Background(), p, dm, Caps{MaxText: 4096})
	d.every = time.Millisecond
	s := &replyStream{ctx: context.Background(), drafts: d,
		split: func(s string) []string { return Split(s, 4096, nil) },
		send:  func(ctx context.Context, m Outgoing) (MessageRef, error) { return p.Send(ctx, dm, m) }}
	for range 20 {
		s.Event(agent.Event{Kind: agent.EventText, Text: "word "})
	}
	s.Event(agent.Event{Kind: agent.EventDone})
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.sent) != 1 || !strings.HasPrefix(p.sent[0], "word word") {
		t.Errorf("sent %q; want the reply as one message", p.sent)
	}
}

// Drafts never hold the model's stream up: a draft on its way (a slow
// platform) does not stop new text from arriving, and the newest text is
// the one shown next.
func TestStreamDraftsDoNotBlock(t *testing.T) {
	p := &draftPlatform{chatPlatform: newChatPlatform(), ids: map[int64]bool{}, release: make(chan struct{})}
	d := draftsFor(context.Background(), p, dm, Caps{MaxText: 4096})
	d.every = time.Millisecond
	s := &replyStream{ctx: context.Background(), drafts: d,
		split: func(s string) []string { return Split(s, 4096, nil) },
		send:  func(ctx context.Context, m Outgoing) (MessageRef, error) { return p.Send(ctx, dm, m) }}
	done := make(chan struct{})
	go func() {
		for i := range 100 {
			s.Event(agent.Event{Kind: agent.EventText, Text: string(rune('a' + i%26))})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream waited for a draft")
	}
	close(p.release)
	s.Event(agent.Event{Kind: agent.EventDone})
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.drafts) > 2 {
		t.Errorf("%d drafts for one slow platform call; want the first and then only the newest", len(p.drafts))
	}
}
