package main

import (
	"encoding/json"
	"os"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/terminal"
	"github.com/hermes-go/hermes/tools/todo"
)

// builtinTools is every tool hermes has, before toolset selection, and
// what must be released when the command ends.
type builtinTools struct {
	registry *tool.Registry
	todo     *todo.Todo
	terminal *terminal.Terminal
}

// close kills the background processes the model started; a process
// outlives hermes only under a future ` + "`hermes serve`" + ` that keeps it.
func (b *builtinTools) close() {
	b.terminal.Close()
}

// newTools registers the built-in tools. fallback approves commands when a
// turn brings no approver of its own.
func newTools(l *config.Loaded, store session.Store, fallback tool.Approver) (*builtinTools, error) {
	reg := tool.NewRegistry()
	td := todo.New()
	term := terminal.New(terminal.Options{
		DefaultTimeout: l.Config.Terminal.Timeout,
		MaxTimeout:     l.Config.Terminal.MaxTimeout,
		ScrubNames:     l.SecretNames(os.Environ()),
		Fallback:       fallback,
	})
	for _, t := range []tool.Tool{term, terminal.NewProcessTool(term), td, session.NewSearchTool(store)} {
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	return &builtinTools{registry: reg, todo: td, terminal: term}, nil
}

// restoreTodo gives the todo tool back the list of a resumed session: the
// data of the last successful todo result in its history.
func restoreTodo(t *todo.Todo, sessionID string, history []session.Message) {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role != llm.RoleTool || m.Name != "todo" {
			continue
		}
		var env struct {
			Status string      `json:"status"`
			Data   todo.Result `json:"data"`
		}
		if json.Unmarshal([]byte(m.Text()), &env) == nil && env.Status == "ok" {
			t.Load(sessionID, env.Data.Todos)
			return
		}
	}
}
