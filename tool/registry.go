package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hermes-go/hermes/llm"
)

// DefaultToolset is the toolset of a tool whose Spec names none.
const DefaultToolset = "general"

// Registry holds the tools of one engine and the selection of toolsets the
// model is offered. It is built explicitly at startup (no registration by
// init side effect) and is safe for concurrent use; the per-iteration
// queries the agent loop makes (Specs, Resolve, Prepare) read an immutable
// snapshot and take no lock.
type Registry struct {
	mu      sync.RWMutex
	entries map[string]*entry
	sel     selection
	snap    atomic.Pointer[snapshot]
}

// entry is a registered tool with what registration computed once: its
// spec, its compiled schema and its compact parameters for the model.
type entry struct {
	tool   Tool
	spec   Spec
	schema *Schema
	params json.RawMessage
}

// NewRegistry returns an empty registry with every toolset selected.
func NewRegistry() *Registry {
	return &Registry{entries: map[string]*entry{}, sel: selection{all: true}}
}

// Register adds a tool. Its Spec is read once, here, so a tool's spec must
// not change afterwards. Register refuses a name that is empty, too long or
// has characters the model APIs reject, a name already taken, a parameters
// schema that does not compile or does not describe an object, a PathArg
// the schema does not declare, and negative limits; the error names the
// tool and the problem.
func (r *Registry) Register(t Tool) error {
	if t == nil {
		return fmt.Errorf("tool: Register called with a nil tool")
	}
	spec := t.Spec()
	if err := checkName(spec.Name); err != nil {
		return fmt.Errorf("tool: %v", err)
	}
	if spec.Toolset == "" {
		spec.Toolset = DefaultToolset
	}
	if err := checkLimits(spec); err != nil {
		return err
	}
	schema, err := CompileSchema(spec.Name, spec.Parameters)
	if err != nil {
		return err
	}
	if spec.PathArg != "" {
		if _, ok := schema.root.Properties[spec.PathArg]; !ok {
			return fmt.Errorf("tool %q: PathArg %q is not a property of its parameters schema", spec.Name, spec.PathArg)
		}
	}
	params := emptyParameters
	if len(bytes.TrimSpace(spec.Parameters)) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, spec.Parameters); err != nil {
			return fmt.Errorf("tool %q: parameters schema is not valid JSON: %v", spec.Name, err)
		}
		params = buf.Bytes()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.entries[spec.Name]; ok {
		return fmt.Errorf("tool %q is already registered (toolset %q); tool names must be unique", spec.Name, old.spec.Toolset)
	}
	r.entries[spec.Name] = &entry{tool: t, spec: spec, schema: schema, params: params}
	r.snap.Store(nil)
	return nil
}

// checkLimits rejects negative durations and counts in a spec.
func checkLimits(s Spec) error {
	switch {
	case s.Timeout < 0:
		return fmt.Errorf("tool %q: Timeout is %v; want zero (the default) or more", s.Name, s.Timeout)
	case s.Retry.Attempts < 0:
		return fmt.Errorf("tool %q: Retry.Attempts is %d; want zero (no retry) or more", s.Name, s.Retry.Attempts)
	case s.MaxOutput < 0:
		return fmt.Errorf("tool %q: MaxOutput is %d; want zero (the default) or more", s.Name, s.MaxOutput)
	}
	for _, b := range s.Retry.Backoff {
		if b < 0 {
			return fmt.Errorf("tool %q: Retry.Backoff holds %v; waits cannot be negative", s.Name, b)
		}
	}
	return nil
}

// Get returns the registered tool with exactly this name, whether or not
// it is selected or available.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	e, ok := r.entries[name]
	r.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// All returns every registered tool sorted by name.
func (r *Registry) All() []Tool {
	s := r.snapshot()
	out := make([]Tool, len(s.all))
	for i, e := range s.all {
		out[i] = e.tool
	}
	return out
}

// Specs returns what the model is offered: the selected, available tools
// sorted by name, so the request prefix stays byte-identical between
// iterations and prompt caches keep hitting. The slice is computed once per
// change of the registry; the caller gets its own copy.
func (r *Registry) Specs() []llm.ToolSpec {
	return slices.Clone(r.snapshot().specs)
}

// Prepare parses, coerces and validates raw arguments for the named tool
// with the schema compiled at registration (see Schema.Prepare).
func (r *Registry) Prepare(name, raw string) (json.RawMessage, *Error) {
	r.mu.RLock()
	e, ok := r.entries[name]
	r.mu.RUnlock()
	if !ok {
		return nil, Errorf(CodeNotFound, "there is no tool named %q", name)
	}
	return e.schema.Prepare(raw)
}

// Refresh forgets the cached availability of every tool, so the next query
// asks each Availability tool again (after the configuration or the
// environment changed).
func (r *Registry) Refresh() {
	r.mu.Lock()
	r.snap.Store(nil)
	r.mu.Unlock()
}

// lookup returns the entry of an offered tool (selected and available).
func (r *Registry) lookup(name string) (*entry, bool) {
	e, ok := r.snapshot().offered[name]
	return e, ok
}
