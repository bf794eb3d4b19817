package llm

import (
	"context"
	"iter"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// Route is one entry of a fallback chain: a provider and the model to ask
// for there (empty keeps the request's model).
type Route struct {
	Provider Provider
	Model    string
}

// Fallback tries a chain of routes in order. When a route fails in a way
// another provider might not (rate limits, overload, server and network
// errors, an unknown model, repeated invalid replies), the next route is
// tried, and the failed one rests for a cooldown before it is tried first
// again. Each route is expected to do its own retrying (WithRetry) first.
type Fallback struct {
	routes   []Route
	cooldown time.Duration
	clock    clock.Clock
	logger   *slog.Logger

	mu        sync.Mutex
	coolUntil []time.Time
}

// FallbackOptions tunes a Fallback; the zero value is usable.
type FallbackOptions struct {
	// Cooldown is how long a failed route is skipped; zero means 5 minutes.
	Cooldown time.Duration
	// Clock times the cooldowns; nil means the real clock.
	Clock  clock.Clock
	Logger *slog.Logger
}

// NewFallback returns a provider that tries routes in order. routes must
// not be empty.
func NewFallback(routes []Route, opts FallbackOptions) *Fallback {
	if opts.Cooldown <= 0 {
		opts.Cooldown = 5 * time.Minute
	}
	return &Fallback{routes: routes, cooldown: opts.Cooldown, clock: clock.OrReal(opts.Clock), logger: opts.Logger,
		coolUntil: make([]time.Time, len(routes))}
}

// Name is the primary route's provider name.
func (f *Fallback) Name() string { return f.routes[0].Provider.Name() }

// ListModels lists the primary route's models.
func (f *Fallback) ListModels(ctx context.Context) ([]ModelInfo, error) {
	if l, ok := f.routes[0].Provider.(ModelLister); ok {
		return l.ListModels(ctx)
	}
	return nil, &Error{Kind: ErrNotFound, Provider: f.Name(), Message: "this provider cannot list models"}
}

// order returns the route indexes to try: resting routes go last, in
// their original order, so that a chain where everything rests still tries
// everything.
func (f *Fallback) order() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	ready := make([]int, 0, len(f.routes))
	var resting []int
	for i := range f.routes {
		if now.Before(f.coolUntil[i]) {
			resting = append(resting, i)
		} else {
			ready = append(ready, i)
		}
	}
	return append(ready, resting...)
}

func (f *Fallback) rest(i int) {
	f.mu.Lock()
	f.coolUntil[i] = f.clock.Now().Add(f.cooldown)
	f.mu.Unlock()
}

// Stream tries the routes in order and yields the events of each attempt;
// an EventRetry with Fallback set separates one route's attempt from the
// next.
func (f *Fallback) Stream(ctx context.Context, req *Request) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		order := f.order()
		for n, i := range order {
			route := f.routes[i]
			r := req
			if route.Model != "" && route.Model != req.Model {
				r = req.Clone()
				r.Model = route.Model
			}
			final, ok := forward(route.Provider.Stream(ctx, r), yield)
			if !ok {
				return
			}
			if final.Kind == EventDone || n == len(order)-1 || ctx.Err() != nil || !fallsBack(final.Err) {
				yield(final)
				return
			}
			f.rest(i)
			next := f.routes[order[n+1]]
			if f.logger != nil {
				f.logger.LogAttrs(ctx, slog.LevelWarn, "model provider failed; falling back",
					slog.String("provider", route.Provider.Name()), slog.String("kind", string(KindOf(final.Err))),
					slog.String("next", next.Provider.Name()), slog.String("error", final.Err.Error()))
			}
			info := &RetryInfo{Attempt: n + 2, Err: final.Err, Provider: next.Provider.Name(), Model: next.Model, Fallback: true}
			if !yield(Event{Kind: EventRetry, Retry: info}) {
				return
			}
		}
	}
}

// fallsBack reports whether err is a failure another provider may not have.
func fallsBack(err error) bool {
	switch KindOf(err) {
	case ErrRateLimited, ErrOverloaded, ErrServer, ErrNetwork, ErrNotFound, ErrInvalidResponse:
		return true
	}
	return false
}
