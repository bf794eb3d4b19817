package tool

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
)

func TestDispatchRetries(t *testing.T) {
	ms := time.Millisecond
	flaky := func(n *atomic.Int32, failures int32, err error) func(context.Context, json.RawMessage) (any, error) {
		return func(context.Context, json.RawMessage) (any, error) {
			if n.Add(1) <= failures {
				return nil, err
			}
			return "done", nil
		}
	}
	tests := []struct {
		name         string
		spec         Spec
		over         map[string]Override
		failures     int32
		err          error
		wantAttempts int
		wantStatus   Status
		wantWaits    []time.Duration
	}{
		{"idempotent retried until success", Spec{Idempotent: true, Retry: Retry{Attempts: 3, Backoff: []time.Duration{3 * ms, 10 * ms}}},
			nil, 2, errors.New("flaky"), 3, StatusOK, []time.Duration{3 * ms, 10 * ms}},
		{"last backoff repeats", Spec{Idempotent: true, Retry: Retry{Attempts: 4, Backoff: []time.Duration{5 * ms}}},
			nil, 10, errors.New("down"), 4, StatusError, []time.Duration{5 * ms, 5 * ms, 5 * ms}},
		{"not idempotent not retried", Spec{Retry: Retry{Attempts: 3}},
			nil, 1, errors.New("flaky"), 1, StatusError, nil},
		{"retryable error retried", Spec{Retry: Retry{Attempts: 3, Backoff: []time.Duration{ms}}},
			nil, 1, &Error{Code: CodeUpstreamUnavailable, Message: "503", Retryable: true}, 2, StatusOK, []time.Duration{ms}},
		{"denied never retried", Spec{Idempotent: true, Retry: Retry{Attempts: 3}},
			nil, 1, &Error{Code: CodeDenied, Message: "no", Retryable: true}, 1, StatusError, nil},
		{"invalid arguments never retried", Spec{Idempotent: true, Retry: Retry{Attempts: 3}},
			nil, 1, Errorf(CodeInvalidArguments, "bad"), 1, StatusError, nil},
		{"not found never retried", Spec{Idempotent: true, Retry: Retry{Attempts: 3}},
			nil, 1, Errorf(CodeNotFound, "no such order"), 1, StatusError, nil},
		{"override disables", Spec{Idempotent: true, Retry: Retry{Attempts: 3}},
			map[string]Override{"t": {Retry: Retry{Attempts: 1}}}, 1, errors.New("x"), 1, StatusError, nil},
		{"override enables", Spec{Idempotent: true},
			map[string]Override{"t": {Retry: Retry{Attempts: 2, Backoff: []time.Duration{7 * ms}}}}, 1, errors.New("x"), 2, StatusOK, []time.Duration{7 * ms}},
		{"no policy no retry", Spec{Idempotent: true}, nil, 1, errors.New("x"), 1, StatusError, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			tt.spec.Name = "t"
			tl := &fakeTool{spec: tt.spec, call: flaky(&n, tt.failures, tt.err)}
			sl := newNoSleep()
			d := &Dispatcher{Registry: newRegistry(t, tl), Overrides: tt.over, Clock: sl}
			o := d.Run(context.Background(), []llm.ToolCall{call("1", "t", "")}, nil)[0]
			if o.Attempts != tt.wantAttempts || int(n.Load()) != tt.wantAttempts || o.Result.Status != tt.wantStatus {
				t.Errorf("attempts %d (tool saw %d), status %s; want %d, %s", o.Attempts, n.Load(), o.Result.Status, tt.wantAttempts, tt.wantStatus)
			}
			if !slices.Equal(sl.waits, tt.wantWaits) {
				t.Errorf("waits %v, want %v", sl.waits, tt.wantWaits)
			}
		})
	}
}

func TestDispatchRetryTimeoutOfIdempotentTool(t *testing.T) {
	var n atomic.Int32
	tl := &fakeTool{spec: Spec{Name: "t", Idempotent: true, Timeout: 5 * time.Millisecond, Retry: Retry{Attempts: 2}},
		call: func(ctx context.Context, _ json.RawMessage) (any, error) {
			if n.Add(1) == 1 {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return "ok", nil
		}}
	d := &Dispatcher{Registry: newRegistry(t, tl), Clock: newNoSleep()}
	o := d.Run(context.Background(), []llm.ToolCall{call("1", "t", "")}, nil)[0]
	if o.Attempts != 2 || o.Result.Status != StatusOK {
		t.Errorf("outcome %+v", o)
	}
}

// TestDispatchRetryWaitInterrupted: a turn cancelled while the call
// waits out its backoff ends the call as interrupted.
func TestDispatchRetryWaitInterrupted(t *testing.T) {
	tl := &fakeTool{spec: Spec{Name: "t", Idempotent: true, Retry: Retry{Attempts: 3, Backoff: []time.Duration{time.Hour}}},
		call: func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("down") }}
	clk := clock.NewFake(t0)
	d := &Dispatcher{Registry: newRegistry(t, tl), Clock: clk}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Outcome)
	go func() { done <- d.Run(ctx, []llm.ToolCall{call("1", "t", "")}, nil)[0] }()
	clk.BlockUntil(1) // waiting out the hour
	cancel()
	if o := <-done; o.Result.ErrorCode != CodeInterrupted || o.Attempts != 1 {
		t.Errorf("outcome %+v", o)
	}
}

// TestDispatchWaitsOnTheRealClock: a Dispatcher without a Clock waits out
// its backoff on the real clock, and the wait ends with the turn.
func TestDispatchWaitsOnTheRealClock(t *testing.T) {
	var n atomic.Int32
	flaky := &fakeTool{spec: Spec{Name: "t", Idempotent: true, Retry: Retry{Attempts: 2, Backoff: []time.Duration{time.Millisecond}}},
		call: func(context.Context, json.RawMessage) (any, error) {
			if n.Add(1) == 1 {
				return nil, errors.New("flaky")
			}
			return "done", nil
		}}
	d := &Dispatcher{Registry: newRegistry(t, flaky)}
	if o := d.Run(context.Background(), []llm.ToolCall{call("1", "t", "")}, nil)[0]; o.Attempts != 2 || o.Result.Status != StatusOK {
		t.Errorf("after a 1ms backoff: outcome %+v", o)
	}

	down := &fakeTool{spec: Spec{Name: "t", Idempotent: true, Retry: Retry{Attempts: 3, Backoff: []time.Duration{time.Hour}}},
		call: func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("down") }}
	d = &Dispatcher{Registry: newRegistry(t, down)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if o := d.Run(ctx, []llm.ToolCall{call("1", "t", "")}, nil)[0]; o.Result.ErrorCode != CodeInterrupted {
		t.Errorf("a turn that ends during an hour's backoff: outcome %+v", o)
	}
}
