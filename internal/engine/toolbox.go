package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// Tools is every tool hermes has and how calls to them run.
type Tools struct {
	// Registry holds every registered tool; turns are offered a
	// selection of it. Tools registered later (an MCP server that came
	// up, the cronjob tool) are seen by every selection.
	Registry *tool.Registry
	// Toolsets is the default selection (config's toolsets, or the
	// --toolsets flag); empty means every toolset.
	Toolsets []string
	// Disabled toolsets are off for every turn (agent.disabled_toolsets).
	Disabled []string
	// Overrides adjust single tools' timeouts (agent.tool_timeouts).
	Overrides map[string]tool.Override
	// Redact cleans every tool result of the secret values hermes holds
	// before the model sees it.
	Redact func(string) string
	// Audit, when set, hears of every call of every turn (the audit
	// log).
	Audit func(ctx context.Context, c tool.Audited)
}

// Toolbox is a selection of the tools behind a dispatcher of its own: what
// one turn is offered and how its calls run.
type Toolbox struct {
	*tool.Registry
	*tool.Dispatcher
	// prompt is the system prompt last cached for a session offered this
	// box (see shared); guarded by Engine.mu.
	prompt string
	// gen is the generation of hermes's registry a box of its own tools
	// (an agent's) was made at; a later one makes it again.
	gen uint64
}

// Offers reports whether the model is offered the tool named exactly name.
func (b *Toolbox) Offers(name string) bool {
	for _, s := range b.Registry.Specs() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// Toolbox returns the tools of toolsets (the default selection when
// toolsets is empty) behind a dispatcher. Naming a toolset no tool
// belongs to is an error that lists the known ones; the caller says where
// the name came from.
func (e *Engine) Toolbox(toolsets []string) (*Toolbox, error) {
	key := strings.Join(toolsets, ",")
	e.mu.Lock()
	box, ok := e.boxes[key]
	e.mu.Unlock()
	if ok {
		return box, nil
	}
	t := e.opt.Tools
	enabled := t.Toolsets
	if len(toolsets) > 0 {
		enabled = toolsets
	}
	sel, err := t.Registry.Select(enabled, t.Disabled)
	if err != nil {
		return nil, err
	}
	return e.keepBox(key, e.toolbox(sel)), nil
}

// keepBox caches box under key and returns it.
func (e *Engine) keepBox(key string, box *Toolbox) *Toolbox {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.boxes) >= maxBoxes {
		clear(e.boxes)
	}
	e.boxes[key] = box
	return box
}

// withTools returns box's offered selection and every tool of extra
// behind a dispatcher of their own, for one turn: extra's tools are the
// turn's alone, so they join a registry made for it instead of the
// engine's. A name both hold is an error naming it.
func (e *Engine) withTools(box *Toolbox, extra *tool.Registry) (*Toolbox, error) {
	tools := append(box.selected(), extra.All()...)
	reg := tool.NewRegistry()
	if err := reg.Swap(nil, tools); err != nil {
		return nil, fmt.Errorf("the session's own tools clash with hermes's: %w; rename the MCP server that offers them", err)
	}
	return e.toolbox(reg), nil
}

// selects reports whether b's selection holds the tool named name,
// available or not.
func (b *Toolbox) selects(name string) bool {
	for _, info := range b.Registry.Infos() {
		if info.Selected && info.Name == name {
			return true
		}
	}
	return false
}

// selected returns the tools b selects, but for those named in except.
func (b *Toolbox) selected(except ...string) []tool.Tool {
	var tools []tool.Tool
	for _, info := range b.Registry.Infos() {
		if !info.Selected || slices.Contains(except, info.Name) {
			continue
		}
		if t, ok := b.Registry.Get(info.Name); ok {
			tools = append(tools, t)
		}
	}
	return tools
}

// AllTools is every registered tool, whatever the selection, behind a
// dispatcher: for running one tool by hand (hermes tools test).
func (e *Engine) AllTools() *Toolbox { return e.toolbox(e.opt.Tools.Registry) }

// toolbox puts reg behind a dispatcher with the configured overrides,
// redaction and logger.
func (e *Engine) toolbox(reg *tool.Registry) *Toolbox {
	t := e.opt.Tools
	d := &tool.Dispatcher{Registry: reg, Overrides: t.Overrides, Redact: t.Redact, Logger: e.opt.Logger, Clock: e.opt.Clock, Audit: t.Audit}
	if e.opt.Hooks != nil {
		d.Hooks = e.opt.Hooks
	}
	return &Toolbox{Registry: reg, Dispatcher: d}
}

// maxBoxes bounds the cached selections; jobs name a handful at most.
const maxBoxes = 64

// resumer is a tool that keeps state per session (the todo list) and
// restores it from a session's history the first time this process runs a
// turn in it.
type resumer interface {
	Resume(sessionID string, history []llm.Message)
}

// resume gives every resumer among the tools the session's history.
func (e *Engine) resume(sessionID string, history []llm.Message, box *Toolbox) {
	if len(history) == 0 {
		return
	}
	for _, t := range box.Registry.All() {
		if r, ok := t.(resumer); ok {
			r.Resume(sessionID, history)
		}
	}
}
