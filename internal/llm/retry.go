package llm

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// RetryPolicy says how a provider call is retried. The zero value retries
// nothing; DefaultRetryPolicy is what hermes uses unless configured.
type RetryPolicy struct {
	// MaxRetries is the number of attempts after the first.
	MaxRetries int
	// BaseDelay is the pause before the first retry; it doubles for each
	// further retry, with jitter, up to MaxDelay.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Clock times the pauses between attempts; nil means the real clock.
	// Tests pass a fake so that nothing sleeps.
	Clock clock.Clock
	// Rand returns a number in [0, 1) for jitter; nil uses math/rand/v2.
	Rand func() float64
	// Logger receives one warning per retry; nil logs nothing.
	Logger *slog.Logger
}

// DefaultRetryPolicy is 3 retries, 2 s doubling to at most 60 s.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 3, BaseDelay: 2 * time.Second, MaxDelay: 60 * time.Second}

// WithRetry returns p wrapped so that failed calls are retried under
// policy. Retried are rate limits (unless the quota is exhausted),
// overloads, server and network errors, stalled streams, and empty or
// undecodable replies. Not retried: auth and bad requests, which will fail
// the same way again, and context overflow, which the caller must handle by
// compressing. A Retry-After longer than MaxDelay is not waited out: the
// error is returned so that a fallback provider can take over.
func WithRetry(p Provider, policy RetryPolicy) Provider {
	if policy.MaxRetries <= 0 {
		return p
	}
	return &retrying{p: p, policy: policy}
}

type retrying struct {
	p      Provider
	policy RetryPolicy
}

func (r *retrying) Name() string { return r.p.Name() }

// ListModels passes through to the wrapped provider when it can list.
func (r *retrying) ListModels(ctx context.Context) ([]ModelInfo, error) {
	if l, ok := r.p.(ModelLister); ok {
		return l.ListModels(ctx)
	}
	return nil, &Error{Kind: ErrNotFound, Provider: r.p.Name(), Message: "this provider cannot list models"}
}

func (r *retrying) Stream(ctx context.Context, req *Request) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for attempt := 1; ; attempt++ {
			final, ok := forward(r.p.Stream(ctx, req), yield)
			if !ok {
				return
			}
			err := retryableFailure(final)
			if err == nil {
				yield(final)
				return
			}
			if attempt > r.policy.MaxRetries || ctx.Err() != nil {
				yield(gaveUp(final, err, attempt))
				return
			}
			delay, wait := r.policy.delay(attempt, err)
			if !wait {
				yield(final)
				return
			}
			if l := r.policy.Logger; l != nil {
				l.LogAttrs(ctx, slog.LevelWarn, "model call failed; retrying",
					slog.String("provider", r.p.Name()), slog.String("kind", string(KindOf(err))),
					slog.Int("attempt", attempt+1), slog.Int64("delay_ms", delay.Milliseconds()),
					slog.String("error", err.Error()))
			}
			info := &RetryInfo{Attempt: attempt + 1, Delay: delay, Err: err, Provider: r.p.Name(), Model: req.Model}
			if !yield(Event{Kind: EventRetry, Retry: info}) {
				return
			}
			if err := clock.OrReal(r.policy.Clock).Sleep(ctx, delay); err != nil {
				yield(Event{Kind: EventError, Err: err, Response: final.Response})
				return
			}
		}
	}
}

// forward passes every event but the final one to yield and returns the
// final one. ok is false when the consumer stopped early.
func forward(events iter.Seq[Event], yield func(Event) bool) (final Event, ok bool) {
	for ev := range events {
		if ev.Kind == EventDone || ev.Kind == EventError {
			final = ev
			continue
		}
		if !yield(ev) {
			return final, false
		}
	}
	if final.Kind == 0 {
		final = Event{Kind: EventError, Err: &Error{Kind: ErrInvalidResponse, Message: "stream ended without a final event"}}
	}
	return final, true
}

// gaveUp is the event that ends a stream whose last attempt failed with
// err: the final event itself, except that an empty reply, which is a
// success on the wire, becomes the error it is, counting the attempts
// that all came back empty.
func gaveUp(final Event, err error, attempts int) Event {
	if final.Kind != EventDone {
		return final
	}
	e, _ := AsError(err)
	if attempts > 1 {
		e.Message = fmt.Sprintf("%s %d times in a row", e.Message, attempts)
	}
	return Event{Kind: EventError, Err: e, Response: final.Response}
}

// retryableFailure returns the error that makes final worth retrying, or
// nil. An empty successful reply counts as an invalid response.
func retryableFailure(final Event) error {
	if final.Kind == EventDone {
		resp := final.Response
		if resp != nil && resp.Empty() && resp.FinishReason != FinishLength && resp.FinishReason != FinishContentFilter {
			return &Error{Kind: ErrInvalidResponse, Provider: resp.Provider, Message: "the model returned an empty reply"}
		}
		return nil
	}
	e, ok := AsError(final.Err)
	if !ok || !e.Kind.Retryable() || e.Exhausted() {
		return nil
	}
	return e
}

// delay returns the pause before retry number attempt (1-based) and
// whether to retry at all.
func (p RetryPolicy) delay(attempt int, err error) (time.Duration, bool) {
	if e, ok := AsError(err); ok && e.RetryAfter > 0 {
		if p.MaxDelay > 0 && e.RetryAfter > p.MaxDelay {
			return 0, false
		}
		return e.RetryAfter, true
	}
	d := p.BaseDelay
	for i := 1; i < attempt && (p.MaxDelay <= 0 || d < p.MaxDelay); i++ {
		d *= 2
	}
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	// Equal jitter: half fixed, half random, so that many clients that
	// failed together do not retry together.
	rnd := rand.Float64
	if p.Rand != nil {
		rnd = p.Rand
	}
	return d/2 + time.Duration(rnd()*float64(d/2)), true
}
