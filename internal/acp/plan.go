package acp

import (
	"encoding/json"
	"slices"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/tools/todo"
)

// planEntries is the editor's plan for the list a todo call returned;
// ok is false when data holds no list (a failed call). The list's order
// is its priority: the item in progress is high, the pending ones medium
// and the finished ones low. Cancelled items are left out, as ACP's plan
// has no such status and the editor shows the plan as work to do.
func planEntries(data any) (entries []acpsdk.PlanEntry, ok bool) {
	var r struct {
		Todos *[]todo.Item `json:"todos"`
	}
	raw, err := json.Marshal(data)
	if err != nil || json.Unmarshal(raw, &r) != nil || r.Todos == nil {
		return nil, false
	}
	entries = []acpsdk.PlanEntry{}
	for _, it := range *r.Todos {
		e := acpsdk.PlanEntry{Content: it.Content}
		switch it.Status {
		case todo.StatusInProgress:
			e.Status, e.Priority = acpsdk.PlanEntryStatusInProgress, acpsdk.PlanEntryPriorityHigh
		case todo.StatusCompleted:
			e.Status, e.Priority = acpsdk.PlanEntryStatusCompleted, acpsdk.PlanEntryPriorityLow
		case todo.StatusCancelled:
			continue
		default:
			e.Status, e.Priority = acpsdk.PlanEntryStatusPending, acpsdk.PlanEntryPriorityMedium
		}
		entries = append(entries, e)
	}
	return entries, true
}

// plan sends the list a todo call returned as the session's plan, when
// it differs from the last plan sent in this turn: reading the list
// changes nothing the editor shows.
func (u *updater) plan(data any) {
	entries, ok := planEntries(data)
	if !ok {
		return
	}
	u.mu.Lock()
	same := u.planned != nil && slices.EqualFunc(*u.planned, entries, func(a, b acpsdk.PlanEntry) bool {
		return a.Content == b.Content && a.Status == b.Status && a.Priority == b.Priority
	})
	u.planned = &entries
	u.mu.Unlock()
	if !same {
		u.send(acpsdk.UpdatePlan(entries...))
	}
}
