package tool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// callWithRetry runs a call until it succeeds, fails in a way not worth
// retrying, or runs out of attempts. Retries live here, in the execution
// layer, so the model sees one result per call and the conversation does
// not fill with repeats (seed 003 §3.3).
func (d *Dispatcher) callWithRetry(ctx context.Context, j *job) (Result, int) {
	policy := j.entry.spec.Retry
	if o, ok := d.Overrides[j.name]; ok && o.Retry.Attempts > 0 {
		policy = o.Retry
	}
	attempts := max(policy.Attempts, 1)
	timeout := d.timeout(j)
	if ctx.Err() != nil {
		return interrupted(j.name), 0
	}
	for n := 1; ; n++ {
		res, retry := d.attempt(ctx, j, timeout)
		if !retry || n >= attempts || ctx.Err() != nil {
			return res, n
		}
		if err := clock.OrReal(d.Clock).Sleep(ctx, backoff(policy.Backoff, n-1)); err != nil {
			return interrupted(j.name), n
		}
	}
}

// backoff returns the wait before retry number i (0 for the first retry);
// the last listed wait repeats.
func backoff(waits []time.Duration, i int) time.Duration {
	if len(waits) == 0 {
		return 0
	}
	return waits[min(i, len(waits)-1)]
}

// outcomeOfCall is what one attempt's goroutine reports.
type outcomeOfCall struct {
	data     any
	err      error
	panicked any
	stack    []byte
}

// attempt runs the tool once under its timeout and classifies the result.
// The tool runs on its own goroutine so that a tool ignoring its context
// still cannot hold the turn past the timeout or a cancellation; such a
// tool finishes in the background and its late answer is dropped.
func (d *Dispatcher) attempt(ctx context.Context, j *job, timeout time.Duration) (Result, bool) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ch := make(chan outcomeOfCall, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- outcomeOfCall{panicked: p, stack: debug.Stack()}
			}
		}()
		data, err := j.entry.tool.Call(actx, j.args)
		ch <- outcomeOfCall{data: data, err: err}
	}()
	var oc outcomeOfCall
	select {
	case oc = <-ch:
	case <-actx.Done():
		select {
		case oc = <-ch:
		default:
			oc.err = actx.Err()
		}
	}
	return d.classify(ctx, actx, j, timeout, oc)
}

// classify maps what the tool returned to an envelope and says whether
// another attempt may help. Retries happen only for idempotent tools or
// errors the tool marked retryable, and never for codes another try cannot
// change.
func (d *Dispatcher) classify(ctx, actx context.Context, j *job, timeout time.Duration, oc outcomeOfCall) (Result, bool) {
	spec := j.entry.spec
	switch {
	case oc.panicked != nil:
		if d.Logger != nil {
			d.Logger.LogAttrs(context.WithoutCancel(ctx), slog.LevelError, "tool panicked",
				slog.String("tool", j.name), slog.String("panic", fmt.Sprint(oc.panicked)), slog.String("stack", string(oc.stack)))
		}
		return Fail(CodeInternal, "%s failed with an internal error (%s); this is a fault in the tool, not in the arguments",
			j.name, shortError(fmt.Errorf("%v", oc.panicked))), false
	case oc.err == nil:
		return OK(oc.data), false
	case ctx.Err() != nil:
		return interrupted(j.name), false
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return Fail(CodeTimeout, "%s did not finish within %s and was stopped. Ask for less in one call: "+
			"a narrower query, a smaller range, a filter or a limit, or split the work into smaller calls", j.name, timeout), spec.Idempotent
	}
	te, ok := AsError(oc.err)
	if !ok {
		return Fail(CodeInternal, "%s failed: %s", j.name, shortError(oc.err)), spec.Idempotent
	}
	code := te.Code
	if code == "" {
		code = CodeInternal
	}
	res := Result{Status: StatusError, ErrorCode: code, Message: te.Message, Data: te.Data}
	switch code {
	case CodeInvalidArguments, CodeDenied, CodeNotFound, CodeInterrupted:
		return res, false
	}
	return res, spec.Idempotent || te.Retryable
}

// interrupted answers a call cut off by the end of the turn.
func interrupted(name string) Result {
	return Fail(CodeInterrupted, "%s was interrupted: the turn was cancelled before it finished", name)
}

// timeout is the per-attempt limit of a call: the override from
// configuration, else the tool's own, else the dispatcher's default.
func (d *Dispatcher) timeout(j *job) time.Duration {
	if o, ok := d.Overrides[j.name]; ok && o.Timeout > 0 {
		return o.Timeout
	}
	if j.entry != nil && j.entry.spec.Timeout > 0 {
		return j.entry.spec.Timeout
	}
	if d.DefaultTimeout > 0 {
		return d.DefaultTimeout
	}
	return DefaultTimeout
}

// maxOutput is the character cap of a call's serialized result, chosen
// the same way as the timeout.
func (d *Dispatcher) maxOutput(j *job) int {
	if o, ok := d.Overrides[j.name]; ok && o.MaxOutput > 0 {
		return o.MaxOutput
	}
	if j.entry != nil && j.entry.spec.MaxOutput > 0 {
		return j.entry.spec.MaxOutput
	}
	if d.MaxOutput > 0 {
		return d.MaxOutput
	}
	return DefaultMaxOutput
}
