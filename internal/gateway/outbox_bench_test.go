package gateway

import (
	"context"
	"strconv"
	"sync"
	"testing"
)

// nopPlatform sends instantly, so that a benchmark measures the outbox.
type nopPlatform struct{ *fakePlatform }

func (nopPlatform) Send(_ context.Context, chat Chat, _ Outgoing) (MessageRef, error) {
	return MessageRef{Chat: chat, ID: "1"}, nil
}
func (nopPlatform) Edit(context.Context, MessageRef, Outgoing) error { return nil }

// BenchmarkOutbox1000Chats measures the outbox's cost per message when
// 1,000 chats send at once: queueing, the chat's goroutine, the bucket
// and the wake-up of the Send that waits.
func BenchmarkOutbox1000Chats(b *testing.B) {
	const chats = 1000
	p := nopPlatform{&fakePlatform{caps: Caps{MaxText: 4096, CanEdit: true}}}
	o := NewOutbox(OutboxOptions{Platform: p})
	defer o.Close(context.Background())
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for c := range chats {
		n := b.N / chats
		if c < b.N%chats {
			n++
		}
		chat := Chat{ID: strconv.Itoa(c), Type: DM}
		wg.Go(func() {
			for range n {
				if _, err := o.Send(ctx, "s", chat, Outgoing{Text: "hello"}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
