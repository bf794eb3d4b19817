package matrix_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/matrix"
	"github.com/hermes-go/hermes/internal/gateway/matrix/matrixtest"
)

// received collects what the adapter delivers.
type received struct {
	mu     sync.Mutex
	events []gateway.Event
	ch     chan struct{}
}

func (r *received) deliver(_ context.Context, ev gateway.Event) error {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	select {
	case r.ch <- struct{}{}:
	default:
	}
	return nil
}

// wait returns the first event whose text holds want.
func (r *received) wait(t *testing.T, want string) gateway.Event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		r.mu.Lock()
		for _, ev := range r.events {
			if strings.Contains(ev.Text, want) {
				r.mu.Unlock()
				return ev
			}
		}
		r.mu.Unlock()
		select {
		case <-r.ch: // a new event: look again
		case <-deadline:
			t.Fatalf("no event holding %q arrived; got %+v", want, r.all())
		}
	}
}

func (r *received) all() []gateway.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// run starts the adapter's Receive until the test ends.
func run(t *testing.T, a *matrix.Adapter) *received {
	t.Helper()
	r := &received{ch: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Receive(ctx, r.deliver) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Receive: %v", err)
		}
	})
	return r
}

// botOptions are the adapter's options as the bot with its token, taking
// invites from alice only, with a short long poll so tests end quickly.
func botOptions(hs *matrixtest.Homeserver, bot, alice *matrixtest.Client, cur matrix.Cursor) matrix.Options {
	return matrix.Options{Homeserver: hs.URL, AccessToken: bot.Token, Cursor: cur, PollTimeout: time.Second,
		MayInvite: func(_ context.Context, u string) bool { return u == alice.UserID }}
}

// waitMember waits until user has joined room.
func waitMember(t *testing.T, c *matrixtest.Client, room, user string) {
	t.Helper()
	if !c.Await(20*time.Second, func() bool { return slices.Contains(c.Members(room), user) }) {
		t.Fatalf("%s did not join %s", user, room)
	}
}

// fixedCursor is a Cursor in memory, starting at a given position.
type fixedCursor struct{ since string }

func (c *fixedCursor) Load(context.Context) (string, error) { return c.since, nil }

func (c *fixedCursor) Save(_ context.Context, s string) error { c.since = s; return nil }
