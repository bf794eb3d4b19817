package todo

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/tool"
)

// args are the call's arguments. Todos is a pointer so an absent list
// (read) differs from an empty one (clear the list).
type args struct {
	Todos *[]input `json:"todos"`
	Merge bool     `json:"merge"`
}

// input is one item as the model sent it. Content and Status are pointers
// because a merge updates only the fields given.
type input struct {
	ID      string  `json:"id"`
	Content *string `json:"content"`
	Status  *string `json:"status"`
}

// schema is the JSON Schema of the arguments: Hermes Agent's, except that
// only id is required of an item, so a merge can change just a status.
func schema() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "Task items to write. Omit to read the current list.",
      "maxItems": ` + fmt.Sprint(MaxItems) + `,
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "Unique item identifier, chosen by you (\"1\", \"setup-db\")."},
          "content": {"type": "string", "description": "Task description. Required for new items."},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed", "cancelled"], "description": "Defaults to pending for new items."}
        },
        "required": ["id"]
      }
    },
    "merge": {
      "type": "boolean",
      "default": false,
      "description": "true: update existing items by id and append new ones. false (default): replace the entire list with a fresh plan."
    }
  }
}`)
}

// apply returns the list that results from writing in to list, or an
// *tool.Error naming the first bad item; list itself is never modified.
func apply(list []Item, in []input, merge bool) ([]Item, error) {
	seen := make(map[string]int, len(in))
	for i, x := range in {
		id := strings.TrimSpace(x.ID)
		if err := checkID(id, i); err != nil {
			return nil, err
		}
		if prev, dup := seen[id]; dup {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "todos[%d].id %q repeats todos[%d].id; each id may appear once per call", i, id, prev)
		}
		seen[id] = i
	}

	var next []Item
	index := make(map[string]int) // id -> position in next
	if merge {
		next = append(make([]Item, 0, len(list)+len(in)), list...)
		for i, it := range next {
			index[it.ID] = i
		}
	}
	for i, x := range in {
		if pos, ok := index[strings.TrimSpace(x.ID)]; ok {
			updated, err := update(next[pos], x, i)
			if err != nil {
				return nil, err
			}
			next[pos] = updated
			continue
		}
		it, err := newItem(x, i)
		if err != nil {
			return nil, err
		}
		index[it.ID] = len(next)
		next = append(next, it)
	}
	if len(next) > MaxItems {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "the list would hold %d items; at most %d are accepted: drop completed and cancelled items by replacing the list (merge false), or combine small steps", len(next), MaxItems)
	}
	return next, nil
}

// newItem validates an item that is not in the list yet: it needs
// content; its status defaults to pending.
func newItem(x input, i int) (Item, error) {
	it := Item{ID: strings.TrimSpace(x.ID), Status: StatusPending}
	if x.Content == nil || strings.TrimSpace(*x.Content) == "" {
		return Item{}, tool.Errorf(tool.CodeInvalidArguments, "todos[%d] (id %q) is a new item and needs a non-empty content describing the task", i, it.ID)
	}
	return update(it, x, i)
}

// update applies the fields x gives to it.
func update(it Item, x input, i int) (Item, error) {
	if x.Content != nil {
		c := strings.TrimSpace(*x.Content)
		switch n := utf8.RuneCountInString(c); {
		case n == 0:
			return Item{}, tool.Errorf(tool.CodeInvalidArguments, "todos[%d].content is empty; give a task description, or omit content to keep the current one", i)
		case n > MaxContentChars:
			return Item{}, tool.Errorf(tool.CodeInvalidArguments, "todos[%d].content is %d characters; at most %d are accepted: keep the description short and put details in a file", i, n, MaxContentChars)
		}
		it.Content = c
	}
	if x.Status != nil {
		s := strings.ToLower(strings.TrimSpace(*x.Status))
		if !validStatus(s) {
			return Item{}, tool.Errorf(tool.CodeInvalidArguments, "todos[%d].status %q is not accepted; use pending, in_progress, completed or cancelled", i, *x.Status)
		}
		it.Status = s
	}
	return it, nil
}

func checkID(id string, i int) error {
	switch n := utf8.RuneCountInString(id); {
	case n == 0:
		return tool.Errorf(tool.CodeInvalidArguments, "todos[%d].id is empty; give each item a short unique id such as \"1\" or \"write-tests\"", i)
	case n > MaxIDChars:
		return tool.Errorf(tool.CodeInvalidArguments, "todos[%d].id is %d characters; at most %d are accepted", i, n, MaxIDChars)
	}
	return nil
}

func validStatus(s string) bool {
	switch s {
	case StatusPending, StatusInProgress, StatusCompleted, StatusCancelled:
		return true
	}
	return false
}

// sanitize cleans a list from history for Load (see there): items without
// an id are dropped, a repeated id keeps its last occurrence in that
// occurrence's place, unknown statuses become pending, and overlong
// content is cut.
func sanitize(items []Item) []Item {
	last := make(map[string]int, len(items))
	for i, it := range items {
		last[strings.TrimSpace(it.ID)] = i
	}
	out := make([]Item, 0, min(len(items), MaxItems))
	for i, it := range items {
		it.ID = strings.TrimSpace(it.ID)
		if it.ID == "" || last[it.ID] != i {
			continue
		}
		it.Content = strings.TrimSpace(it.Content)
		if r := []rune(it.Content); len(r) > MaxContentChars {
			it.Content = string(r[:MaxContentChars])
		}
		if s := strings.ToLower(strings.TrimSpace(it.Status)); validStatus(s) {
			it.Status = s
		} else {
			it.Status = StatusPending
		}
		out = append(out, it)
		if len(out) == MaxItems {
			break
		}
	}
	return out
}
