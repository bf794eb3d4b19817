// Package tool defines what a tool is to hermes: a Spec the model sees and a
// Call the dispatcher runs. Every call's outcome reaches the model as one
// Result envelope, so the model learns one shape for success and failure.
package tool

import (
	"context"
	"encoding/json"
	"time"
)

// Spec describes a tool to the model and to the dispatcher.
type Spec struct {
	// Name is the function name the model calls (snake_case).
	Name string
	// Description tells the model when to use the tool and when not to.
	Description string
	// Parameters is the JSON Schema of the arguments object.
	Parameters json.RawMessage
	// Toolset groups tools so users can enable or disable them together.
	Toolset string
	// ParallelSafe tools only read, so several calls may run at once.
	ParallelSafe bool
	// Idempotent tools may be retried after any failure.
	Idempotent bool
	// PathArg names the argument holding the file path a path-scoped tool
	// acts on; two calls of such tools run together only when their paths
	// do not overlap.
	PathArg string
	// Timeout bounds one attempt; zero means the dispatcher's default (30 s).
	Timeout time.Duration
	// Retry says how often and how long apart failed calls are tried again.
	Retry Retry
	// MaxOutput caps the serialized result in characters; zero means the
	// dispatcher's default.
	MaxOutput int
}

// Retry is a tool's retry policy. Retries happen only for idempotent tools
// or for errors marked retryable, and only in the dispatcher, never in the
// agent loop.
type Retry struct {
	// Attempts is the total number of tries; 0 or 1 means no retry.
	Attempts int
	// Backoff lists the waits before the second, third, ... try; the last
	// one repeats when there are more attempts than waits.
	Backoff []time.Duration
}

// Tool is one callable capability. Call gets the validated, coerced JSON
// arguments and returns data for the "data" field of an ok envelope, or an
// error; an *Error sets the envelope's error_code, any other error becomes
// "internal" (or "timeout" when the call's deadline passed).
type Tool interface {
	Spec() Spec
	Call(ctx context.Context, args json.RawMessage) (any, error)
}

// Availability is implemented by tools whose requirements (a binary, an API
// key, a service) may be missing. A tool whose Available returns an error is
// listed with that reason but not offered to the model.
type Availability interface {
	Available() error
}
