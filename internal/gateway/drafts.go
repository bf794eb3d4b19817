package gateway

import (
	"context"
	"sync"
	"time"
)

// Drafter is a platform that can show a reply growing without sending a
// message: Telegram's sendMessageDraft in private chats. A draft is
// ephemeral and any real message dismisses it, so where drafts are shown
// the reply is still sent as a message when each step of the turn ends;
// the draft only shows it being written, without the edits that count
// against the chat's flood budget.
type Drafter interface {
	// Drafts reports whether chat can show drafts.
	Drafts(chat Chat) bool
	// Draft shows text as draft id in chat; the same id replaces the
	// draft shown before.
	Draft(ctx context.Context, chat Chat, id int64, text string) error
}

// draftEvery is the least time between two drafts of a reply: about five
// a second are safe, faster bursts are refused (PLATFORMS.md §1).
const draftEvery = 250 * time.Millisecond

// drafts shows a step's text as a draft while it is written: the newest
// text at most every draftEvery, from a goroutine of its own so the
// model's stream never waits on the platform. A failed draft turns
// drafts off for the rest of the turn; the steps are still sent.
type drafts struct {
	ctx   context.Context
	show  func(ctx context.Context, text string) error
	every time.Duration

	mu      sync.Mutex
	pending string
	has     bool
	running bool
	off     bool
	// gen changes at every stop, so text taken before it is not shown
	// after it.
	gen int
	// showing is held while a draft is on its way.
	showing sync.Mutex
}

// offer makes text the next draft to show.
func (d *drafts) offer(text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.off {
		return
	}
	d.pending, d.has = text, true
	if !d.running {
		d.running = true
		go d.run()
	}
}

// stop drops the draft not yet shown and waits for one on its way, so
// that the message about to be sent is not followed by a draft of its
// own text.
func (d *drafts) stop() {
	d.mu.Lock()
	d.gen++
	d.has = false
	d.mu.Unlock()
	d.showing.Lock()
	d.showing.Unlock()
}

func (d *drafts) run() {
	var last time.Time
	for {
		d.mu.Lock()
		if !d.has || d.off {
			d.running = false
			d.mu.Unlock()
			return
		}
		gen := d.gen
		d.mu.Unlock()
		if wait := d.every - time.Since(last); !last.IsZero() && wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-d.ctx.Done():
				t.Stop()
			}
		}
		d.mu.Lock()
		if d.gen != gen || !d.has || d.off || d.ctx.Err() != nil {
			d.running = d.has && !d.off && d.ctx.Err() == nil
			if !d.running {
				d.mu.Unlock()
				return
			}
			d.mu.Unlock()
			continue
		}
		text := d.pending
		d.has = false
		d.showing.Lock()
		d.mu.Unlock()
		err := d.show(d.ctx, text)
		d.showing.Unlock()
		last = time.Now()
		if err != nil {
			d.mu.Lock()
			d.off = true
			d.mu.Unlock()
		}
	}
}

// draftsFor returns the drafts of a turn in chat, nil where p cannot
// show them there (or the platform wants final answers only).
func draftsFor(ctx context.Context, p Platform, chat Chat, caps Caps) *drafts {
	d, ok := p.(Drafter)
	if !ok || caps.FinalOnly || !d.Drafts(chat) {
		return nil
	}
	// One id for the turn: the same id animates in place.
	id := int64(uint32(time.Now().UnixNano())) | 1
	return &drafts{ctx: ctx, every: draftEvery, show: func(ctx context.Context, text string) error {
		return d.Draft(ctx, chat, id, text)
	}}
}
