// Package trace records spans — a turn, the model calls and tool calls in
// it — and exports them to an OpenTelemetry collector over OTLP/HTTP with
// the JSON encoding. It is a small exporter of its own rather than the
// OpenTelemetry SDK, which would add about 5 MB to the binary for the few
// spans hermes makes.
//
// A nil *Tracer is valid and records nothing: Start returns the context
// unchanged and a nil *Span, whose methods do nothing, so tracing that is
// not configured costs a nil check per span.
package trace

import (
	"context"
	"crypto/rand"
	"time"
)

// Kind is a span's kind, as OTLP numbers them.
type Kind int

// The span kinds hermes uses.
const (
	KindInternal Kind = 1
	KindClient   Kind = 3
)

// Attr is one attribute of a span: a string, an int64, a float64, a bool
// or a []string.
type Attr struct {
	Key   string
	Value any
}

// String is a string attribute.
func String(k, v string) Attr { return Attr{k, v} }

// Int is an integer attribute.
func Int(k string, v int) Attr { return Attr{k, int64(v)} }

// Float is a floating-point attribute.
func Float(k string, v float64) Attr { return Attr{k, v} }

// Strings is an attribute holding a list of strings.
func Strings(k string, v []string) Attr { return Attr{k, v} }

// Span is one timed operation. Its methods may be called on a nil Span
// and are safe for use by one goroutine at a time.
type Span struct {
	t       *Tracer
	traceID [16]byte
	id      [8]byte
	parent  [8]byte
	name    string
	kind    Kind
	start   time.Time
	end     time.Time
	attrs   []Attr
	failed  bool
	message string
	ended   bool
}

// spanKey keys the current span in a context.
type spanKey struct{}

// FromContext returns the span ctx carries, or nil.
func FromContext(ctx context.Context) *Span {
	s, _ := ctx.Value(spanKey{}).(*Span)
	return s
}

// Start begins a span named name, the child of the span ctx carries (or
// the root of a new trace), and returns a context carrying it.
func (t *Tracer) Start(ctx context.Context, name string, kind Kind, attrs ...Attr) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	s := t.newSpan(FromContext(ctx), name, kind, attrs)
	return context.WithValue(ctx, spanKey{}, s), s
}

// StartChild begins a span under parent without a context: a tool call
// that is only known from the events of its turn.
func (t *Tracer) StartChild(parent *Span, name string, kind Kind, attrs ...Attr) *Span {
	if t == nil {
		return nil
	}
	return t.newSpan(parent, name, kind, attrs)
}

// newSpan makes a span under parent, or a root when parent is nil.
func (t *Tracer) newSpan(parent *Span, name string, kind Kind, attrs []Attr) *Span {
	s := &Span{t: t, name: name, kind: kind, start: t.clock.Now(), attrs: attrs}
	if parent != nil {
		s.traceID, s.parent = parent.traceID, parent.id
	} else {
		rand.Read(s.traceID[:])
	}
	rand.Read(s.id[:])
	return s
}

// Set adds attributes to s; after End it does nothing.
func (s *Span) Set(attrs ...Attr) {
	if s == nil || s.ended {
		return
	}
	s.attrs = append(s.attrs, attrs...)
}

// Fail marks s as failed with errType (the semantic conventions'
// error.type, like "timeout" or "rate_limited") and message.
func (s *Span) Fail(errType, message string) {
	if s == nil || s.ended {
		return
	}
	s.failed, s.message = true, message
	s.attrs = append(s.attrs, String("error.type", errType))
}

// End ends s and queues it for export; a second End does nothing.
func (s *Span) End() {
	if s == nil || s.ended {
		return
	}
	s.ended = true
	s.end = s.t.clock.Now()
	s.t.queue(s)
}

// TraceID returns the hex id of s's trace, for logs ("" for nil).
func (s *Span) TraceID() string {
	if s == nil {
		return ""
	}
	return hexID(s.traceID[:])
}
