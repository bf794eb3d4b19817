package todo

import (
	"encoding/json"

	"github.com/hermes-go/hermes/internal/llm"
)

// Resume gives the list of a session back after a restart: the data of
// the last successful todo result in its history. The engine calls it the
// first time a process runs a turn in a session that has a history.
func (t *Todo) Resume(sessionID string, history []llm.Message) {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role != llm.RoleTool || m.Name != "todo" {
			continue
		}
		var env struct {
			Status string `json:"status"`
			Data   Result `json:"data"`
		}
		if json.Unmarshal([]byte(m.Text()), &env) == nil && env.Status == "ok" {
			t.Load(sessionID, env.Data.Todos)
			return
		}
	}
}
