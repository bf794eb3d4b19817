package declared

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Trace is what one attempt of a declared tool did, for
// `hermes tools test NAME`: the exact request, command or statement, with
// secret values shown as ${NAME}, and how it ended.
type Trace struct {
	Tool string
	// Kind is http, command or sql.
	Kind string
	// Request is the human rendering of what was sent: method, full URL
	// and headers and body; the command line, directory, variable names
	// and stdin; or the SQL and its bound arguments.
	Request string
	// Status is the HTTP status ("200 OK"), the exit code ("exit 1") or
	// the row count; empty when the attempt ended before one was known.
	Status string
	// Duration is how long the attempt took; zero when it never ran.
	Duration time.Duration
	// Err is the masked error message, when the attempt failed.
	Err string
}

// String renders the trace in a few lines:
//
//	http search_orders
//	  GET https://api.example.com/orders?status=paid
//	  Authorization: Bearer ${ORDERS_TOKEN}
//	→ 200 OK in 35ms
func (t Trace) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", t.Kind, t.Tool)
	for line := range strings.SplitSeq(t.Request, "\n") {
		b.WriteString("  " + line + "\n")
	}
	b.WriteString("→")
	if t.Status != "" {
		b.WriteString(" " + t.Status)
	}
	if t.Duration > 0 {
		fmt.Fprintf(&b, " in %s", t.Duration.Round(time.Millisecond))
	}
	if t.Err != "" {
		b.WriteString(": " + t.Err)
	}
	return b.String()
}

type traceKey struct{}

// WithTrace returns ctx that makes every declared tool called with it
// report each attempt to fn.
func WithTrace(ctx context.Context, fn func(Trace)) context.Context {
	return context.WithValue(ctx, traceKey{}, fn)
}

// traceFrom returns the trace function of ctx, or nil.
func traceFrom(ctx context.Context) func(Trace) {
	fn, _ := ctx.Value(traceKey{}).(func(Trace))
	return fn
}
