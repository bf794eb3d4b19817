package discord

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// A global rate limit holds every request but the answers to
// interactions, which Discord does not count globally and which must go
// within three seconds; a bucket's state is kept per top-level resource.
func TestLimiterGlobalSparesInteractions(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	l := newLimiter(fake)
	l.holdAll(2 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.wait(ctx, "POST /interactions/{id}/{token}/callback", false); err != nil {
		t.Fatalf("an interaction answer waited on the global limit: %v", err)
	}
	held := make(chan error, 1)
	go func() { held <- l.wait(ctx, "POST /channels/1/messages", true) }()
	blocked(t, fake)
	fake.Advance(2 * time.Second)
	if err := <-held; err != nil {
		t.Fatal(err)
	}

	h := http.Header{}
	h.Set("X-RateLimit-Bucket", "abc")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset-After", "3.5")
	l.update("POST /channels/1/messages", h)
	l.update("POST /channels/2/messages", http.Header{"X-Ratelimit-Bucket": {"abc"}, "X-Ratelimit-Remaining": {"4"}, "X-Ratelimit-Reset-After": {"3.5"}})
	if err := l.wait(ctx, "POST /channels/2/messages", true); err != nil {
		t.Fatalf("channel 2 waited on channel 1's bucket: %v", err)
	}
	go func() { held <- l.wait(ctx, "POST /channels/1/messages", true) }()
	blocked(t, fake)
	fake.Advance(3500 * time.Millisecond)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
}

// blocked waits until something waits on the fake clock, failing after
// ten seconds instead of hanging.
func blocked(t *testing.T, fake *clock.Fake) {
	t.Helper()
	done := make(chan struct{})
	go func() { fake.BlockUntil(1); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("nothing waited on the clock")
	}
}
