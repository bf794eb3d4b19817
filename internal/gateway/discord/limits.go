package discord

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// limiter keeps Discord's rate limits as the answers announce them
// (X-RateLimit-Bucket, -Remaining, -Reset-After), so that a request that
// would surely get a 429 waits for its bucket instead. A bucket is shared
// by the routes Discord names with the same hash, separately per top-level
// resource (a channel, a webhook). A global 429 holds every request but
// the answers to interactions, which Discord does not count globally.
type limiter struct {
	clock clock.Clock

	mu sync.Mutex
	// bucketOf maps a route to its bucket's hash.
	bucketOf map[string]string
	// state is each bucket's state, by hash and top-level resource.
	state map[string]*bucket
	// global is when a global rate limit ends.
	global time.Time
}

// bucket is what the last answer said of a bucket.
type bucket struct {
	remaining int
	reset     time.Time
}

// maxBuckets bounds the state kept; past it, the buckets whose reset has
// passed are forgotten.
const maxBuckets = 1024

func newLimiter(c clock.Clock) *limiter {
	return &limiter{clock: c, bucketOf: map[string]string{}, state: map[string]*bucket{}}
}

// wait blocks until route may be requested: its bucket has requests left
// or has reset, and (when global) no global limit holds.
func (l *limiter) wait(ctx context.Context, route string, global bool) error {
	l.mu.Lock()
	var until time.Time
	if global {
		until = l.global
	}
	if h, ok := l.bucketOf[route]; ok {
		if b := l.state[h+" "+major(route)]; b != nil && b.remaining <= 0 && b.reset.After(until) {
			until = b.reset
		}
	}
	now := l.clock.Now()
	l.mu.Unlock()
	if d := until.Sub(now); d > 0 {
		return l.clock.Sleep(ctx, d)
	}
	return ctx.Err()
}

// update records what an answer's headers say of route's bucket.
func (l *limiter) update(route string, h http.Header) {
	hash := h.Get("X-RateLimit-Bucket")
	remaining, err1 := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	after, err2 := strconv.ParseFloat(h.Get("X-RateLimit-Reset-After"), 64)
	if hash == "" || err1 != nil || err2 != nil {
		return
	}
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.state) >= maxBuckets {
		for k, b := range l.state {
			if !b.reset.After(now) {
				delete(l.state, k)
			}
		}
	}
	if len(l.bucketOf) >= maxBuckets {
		clear(l.bucketOf)
	}
	l.bucketOf[route] = hash
	l.state[hash+" "+major(route)] = &bucket{remaining: remaining, reset: now.Add(time.Duration(after * float64(time.Second)))}
}

// holdAll holds every request (but interaction answers) for d.
func (l *limiter) holdAll(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := l.clock.Now().Add(d); until.After(l.global) {
		l.global = until
	}
}

// major is a route's top-level resource ("channels/123"), which Discord
// keeps separate limits for within a bucket.
func major(route string) string {
	_, path, _ := strings.Cut(route, " ")
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3)
	if len(parts) >= 2 {
		return parts[0] + "/" + parts[1]
	}
	return path
}
