// Package todo is the built-in "todo" tool: the session's task list, which
// the model writes to plan multi-step work and reads to stay on track.
// Its name, parameters and result follow Hermes Agent's todo tool so
// skills and prompts written for Hermes work unchanged.
//
// Lists live in memory, one per session. They survive a restart only
// through the conversation itself: every call returns the whole list, so
// Resume restores the last one found in a resumed session's history.
package todo

import (
	"context"
	_ "embed"
	"encoding/json"
	"sync"

	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed description.md
var description string

// Limits on a list. They keep a list a plan rather than a dump: the list is
// shown to the model on every call and may be re-injected into its context.
const (
	MaxItems        = 100
	MaxContentChars = 4000
	MaxIDChars      = 100
)

// The statuses an item may have.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusCancelled  = "cancelled"
)

// Item is one task of a list. Its JSON form is the one the model writes
// and reads.
type Item struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

// Result is the data of every successful call: the whole list, in order
// (order is priority), and how many items have each status.
type Result struct {
	Todos   []Item  `json:"todos"`
	Summary Summary `json:"summary"`
}

// Summary counts a list's items per status.
type Summary struct {
	Total      int `json:"total"`
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Cancelled  int `json:"cancelled"`
}

// Todo is the todo tool, holding every session's list. It is safe for
// concurrent use; calls of one session are applied one at a time.
type Todo struct {
	mu    sync.Mutex
	lists map[string][]Item
}

// New returns a Todo with no lists.
func New() *Todo {
	return &Todo{lists: make(map[string][]Item)}
}

// Spec describes the tool. Calls mutate the list, so they must not run
// side by side, but repeating one gives the same list, so they may be
// retried.
func (t *Todo) Spec() tool.Spec {
	return tool.Spec{
		Name:        "todo",
		Description: description,
		Parameters:  schema(),
		Toolset:     "todo",
		Idempotent:  true,
	}
}

// Call reads the session's list when todos is absent, and otherwise
// replaces it or, with merge, updates it by id; either way it returns the
// whole list. A write that fails validation leaves the list unchanged.
func (t *Todo) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be an object with an optional todos array of {id, content, status} and an optional boolean merge: %v", err)
	}
	sid := tool.InvocationFrom(ctx).SessionID

	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.lists[sid]
	if a.Todos != nil {
		next, err := apply(list, *a.Todos, a.Merge)
		if err != nil {
			return nil, err
		}
		t.lists[sid] = next
		list = next
	}
	return newResult(list), nil
}

// Load sets a session's list, for the engine to restore it when a session
// resumes. Pass the todos of the last successful todo call in the
// session's history: decode that result's data field (shape Result,
// {"todos": [{"id", "content", "status"}], "summary": {...}}) and give its
// Todos. Items are cleaned rather than rejected, since history is not the
// model's current input: blank ids are dropped, a repeated id keeps its
// last occurrence, an unknown status becomes pending, and the list is cut
// to MaxItems. A nil or empty list clears the session's list.
func (t *Todo) Load(sessionID string, items []Item) {
	clean := sanitize(items)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(clean) == 0 {
		delete(t.lists, sessionID)
		return
	}
	t.lists[sessionID] = clean
}

// Items returns a copy of the session's list, for the engine to show it or
// to re-inject it after compressing the conversation.
func (t *Todo) Items(sessionID string) []Item {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Item(nil), t.lists[sessionID]...)
}

// Forget drops a session's list, so a long-running process does not keep
// one list per finished session.
func (t *Todo) Forget(sessionID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.lists, sessionID)
}

// newResult copies list into a Result, so later changes to the session's
// list cannot alter data already handed to the dispatcher.
func newResult(list []Item) Result {
	r := Result{Todos: make([]Item, len(list))}
	copy(r.Todos, list)
	for _, it := range list {
		r.Summary.Total++
		switch it.Status {
		case StatusPending:
			r.Summary.Pending++
		case StatusInProgress:
			r.Summary.InProgress++
		case StatusCompleted:
			r.Summary.Completed++
		case StatusCancelled:
			r.Summary.Cancelled++
		}
	}
	return r
}
