package llm

import (
	"testing"
	"time"
)

func TestRetryDelay(t *testing.T) {
	p := RetryPolicy{MaxRetries: 5, BaseDelay: 2 * time.Second, MaxDelay: 60 * time.Second}
	tests := []struct {
		name     string
		attempt  int
		err      error
		rnd      float64
		want     time.Duration
		wantWait bool
	}{
		{"first retry, no jitter", 1, &Error{Kind: ErrServer}, 0, time.Second, true},
		{"first retry, full jitter", 1, &Error{Kind: ErrServer}, 0.999999, 2 * time.Second, true},
		{"doubles", 3, &Error{Kind: ErrServer}, 0, 4 * time.Second, true},
		{"capped", 10, &Error{Kind: ErrServer}, 0, 30 * time.Second, true},
		{"retry-after honoured", 1, &Error{Kind: ErrRateLimited, RetryAfter: 7 * time.Second}, 0.5, 7 * time.Second, true},
		{"retry-after beyond the cap gives up", 1, &Error{Kind: ErrRateLimited, RetryAfter: time.Hour}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := p
			q.Rand = func() float64 { return tt.rnd }
			got, wait := q.delay(tt.attempt, tt.err)
			if wait != tt.wantWait || (got-tt.want).Abs() > time.Millisecond {
				t.Errorf("delay(%d) = %v, %v; want %v, %v", tt.attempt, got, wait, tt.want, tt.wantWait)
			}
		})
	}
}

func TestRetryableFailure(t *testing.T) {
	empty := &Response{FinishReason: FinishStop}
	cut := &Response{FinishReason: FinishLength}
	full := &Response{Message: AssistantMessage("hi"), FinishReason: FinishStop}
	tests := []struct {
		name string
		ev   Event
		want bool
	}{
		{"success", Event{Kind: EventDone, Response: full}, false},
		{"empty reply", Event{Kind: EventDone, Response: empty}, true},
		{"empty because cut by length", Event{Kind: EventDone, Response: cut}, false},
		{"rate limited", Event{Kind: EventError, Err: &Error{Kind: ErrRateLimited, Status: 429}}, true},
		{"quota exhausted", Event{Kind: EventError, Err: &Error{Kind: ErrRateLimited, Status: 429, Code: "insufficient_quota"}}, false},
		{"overloaded", Event{Kind: EventError, Err: &Error{Kind: ErrOverloaded}}, true},
		{"network", Event{Kind: EventError, Err: &Error{Kind: ErrNetwork}}, true},
		{"auth", Event{Kind: EventError, Err: &Error{Kind: ErrAuth}}, false},
		{"bad request", Event{Kind: EventError, Err: &Error{Kind: ErrBadRequest}}, false},
		{"context overflow", Event{Kind: EventError, Err: &Error{Kind: ErrContextOverflow}}, false},
	}
	for _, tt := range tests {
		if got := retryableFailure(tt.ev) != nil; got != tt.want {
			t.Errorf("%s: retryable = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		status             int
		typ, code, message string
		want               ErrorKind
	}{
		{429, "rate_limit_error", "", "slow down", ErrRateLimited},
		{529, "overloaded_error", "", "Overloaded", ErrOverloaded},
		{200, "overloaded_error", "", "Overloaded", ErrOverloaded},
		{503, "", "", "unavailable", ErrOverloaded},
		{500, "", "", "", ErrServer},
		{502, "", "", "", ErrServer},
		{401, "authentication_error", "", "bad key", ErrAuth},
		{403, "", "", "", ErrAuth},
		{404, "", "model_not_found", "", ErrNotFound},
		{400, "invalid_request_error", "model_not_found", "The model x does not exist", ErrNotFound},
		{400, "invalid_request_error", "context_length_exceeded", "This model's maximum context length is 8192 tokens", ErrContextOverflow},
		{400, "invalid_request_error", "", "prompt is too long: 210000 tokens > 200000 maximum", ErrContextOverflow},
		{413, "", "", "", ErrContextOverflow},
		{400, "invalid_request_error", "unsupported_parameter", "Unsupported parameter", ErrBadRequest},
		{408, "", "", "", ErrNetwork},
		{0, "invalid_request_error", "tool_use_failed", "", ErrBadRequest},
		{0, "", "rate_limit_exceeded", "", ErrRateLimited},
		{0, "", "", "boom", ErrServer},
	}
	for _, tt := range tests {
		if got := Classify(tt.status, tt.typ, tt.code, tt.message); got != tt.want {
			t.Errorf("Classify(%d, %q, %q, %q) = %s, want %s", tt.status, tt.typ, tt.code, tt.message, got, tt.want)
		}
	}
}
