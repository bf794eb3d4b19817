package gateway

import (
	"context"
	"sync"
)

// Inlet is where a platform's HTTP handler (a webhook, an events
// endpoint) finds the deliver of the Receive that is running. Posts can
// arrive before Receive starts and after it ends; then Take returns nil
// and the handler answers so that the platform posts again (503), rather
// than taking an event nobody will answer. The zero Inlet is closed.
type Inlet struct {
	mu      sync.Mutex
	deliver func(context.Context, Event) error
}

// Open makes deliver the one Take returns, until Close.
func (in *Inlet) Open(deliver func(context.Context, Event) error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.deliver = deliver
}

// Close ends what Open began.
func (in *Inlet) Close() { in.Open(nil) }

// Take returns the running Receive's deliver, nil when none runs.
func (in *Inlet) Take() func(context.Context, Event) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.deliver
}
