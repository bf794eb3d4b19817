package safety

import (
	"context"
	"sync"
)

// Note is what the Policy decided about one tool call's command, for
// the audit log: how it was let through or refused, and by whom. A call
// that ran no command the Policy judged leaves it empty.
type Note struct {
	mu sync.Mutex
	// How is safe, allowlist, earlier, yolo, off, non_interactive,
	// judge, person or denied.
	How string
	// By names who answered when a person did (a chat user, an API
	// caller); "" for the person at the terminal.
	By string
	// Reason is why a command was denied.
	Reason string
}

// Get returns how, by whom and why, safe to call while a call runs.
func (n *Note) Get() (how, by, reason string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.How, n.By, n.Reason
}

type noteKey struct{}

// WithNote returns ctx carrying a new Note the Policy fills in as it
// decides the commands of the call ctx is for.
func WithNote(ctx context.Context) (context.Context, *Note) {
	n := &Note{}
	return context.WithValue(ctx, noteKey{}, n), n
}

// note records how a command of ctx's call was decided. A call running
// several commands keeps the strictest: a denial, then a person's
// answer, then the rest.
func note(ctx context.Context, how, reason string) {
	n, _ := ctx.Value(noteKey{}).(*Note)
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if rank(how) >= rank(n.How) {
		n.How, n.Reason = how, reason
	}
}

// NoteApprover records who answered an approval request of ctx's call:
// a front that knows (a chat's presser, an API caller) calls it before
// it returns the answer.
func NoteApprover(ctx context.Context, by string) {
	if n, _ := ctx.Value(noteKey{}).(*Note); n != nil {
		n.mu.Lock()
		n.By = by
		n.mu.Unlock()
	}
}

// rank orders the ways of deciding by what the audit log should show.
func rank(how string) int {
	switch how {
	case "":
		return 0
	case "safe":
		return 1
	case "denied":
		return 4
	case "person":
		return 3
	default:
		return 2
	}
}
