package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hermes-go/hermes/internal/llm"
)

// DefaultToolset is the toolset of a tool whose Spec names none.
const DefaultToolset = "general"

// Registry holds the tools of one engine and the selection of toolsets the
// model is offered. It is built explicitly at startup (no registration by
// init side effect) and is safe for concurrent use; the per-iteration
// queries the agent loop makes (Specs, Resolve, Prepare) read an immutable
// snapshot and take no lock.
//
// Tools may come and go while hermes runs (a declared tools file edited, an
// MCP server that died or came back): Swap changes the set atomically, and
// every registry made by Select from this one sees the change at its next
// query, since they share one table of tools.
type Registry struct {
	tab  *table
	sel  selection
	bmu  sync.Mutex // serializes snapshot builds of this view
	snap atomic.Pointer[snapshot]
}

// table is the set of tools shared by a registry and the views Select made
// of it. gen counts changes; a snapshot built at an older gen is stale.
type table struct {
	mu      sync.RWMutex
	entries map[string]*entry
	// expected holds toolsets announced by Expect.
	expected map[string]bool
	gen      atomic.Uint64
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
	return &Registry{tab: &table{entries: map[string]*entry{}}, sel: selection{all: true}}
}

// Register adds a tool. Its Spec is read once, here, so a tool's spec must
// not change afterwards. Register refuses a name that is empty, too long or
// has characters the model APIs reject, a name already taken, a parameters
// schema that is not JSON or does not describe an object, a PathArg the
// schema does not declare, and negative limits; the error names the tool
// and the problem. The schema is compiled when the tool is first called
// (see Schema): a schema that does not compile makes every call fail with
// CodeInternal, so a tool from outside hermes is checked with
// CompileSchema where it is loaded.
func (r *Registry) Register(t Tool) error {
	return r.Swap(nil, []Tool{t})
}

// Swap removes the tools named in remove and registers add, all at once:
// when any tool in add is refused (see Register), or a name in remove is
// not registered, nothing changes and the error names every problem.
// Queries running meanwhile see either the old set or the new one.
func (r *Registry) Swap(remove []string, add []Tool) error {
	var errs []error
	fresh := make([]*entry, 0, len(add))
	for _, t := range add {
		e, err := newEntry(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fresh = append(fresh, e)
	}
	tab := r.tab
	tab.mu.Lock()
	defer tab.mu.Unlock()
	gone := map[string]bool{}
	for _, name := range remove {
		if _, ok := tab.entries[name]; !ok {
			errs = append(errs, fmt.Errorf("tool %q is not registered, so it cannot be removed", name))
		}
		gone[name] = true
	}
	seen := map[string]bool{}
	for _, e := range fresh {
		name := e.spec.Name
		if old, ok := tab.entries[name]; (ok && !gone[name]) || seen[name] {
			toolset := e.spec.Toolset
			if ok {
				toolset = old.spec.Toolset
			}
			errs = append(errs, fmt.Errorf("tool %q is already registered (toolset %q); tool names must be unique", name, toolset))
		}
		seen[name] = true
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for name := range gone {
		delete(tab.entries, name)
	}
	for _, e := range fresh {
		tab.entries[e.spec.Name] = e
	}
	tab.gen.Add(1)
	return nil
}

// Unregister removes the named tools; names not registered are ignored.
// It reports how many were removed.
func (r *Registry) Unregister(names ...string) int {
	tab := r.tab
	tab.mu.Lock()
	defer tab.mu.Unlock()
	n := 0
	for _, name := range names {
		if _, ok := tab.entries[name]; ok {
			delete(tab.entries, name)
			n++
		}
	}
	if n > 0 {
		tab.gen.Add(1)
	}
	return n
}

// newEntry checks a tool's spec and compiles what registration computes
// once.
func newEntry(t Tool) (*entry, error) {
	if t == nil {
		return nil, fmt.Errorf("tool: Register called with a nil tool")
	}
	spec := t.Spec()
	if err := checkName(spec.Name); err != nil {
		return nil, fmt.Errorf("tool: %v", err)
	}
	if spec.Toolset == "" {
		spec.Toolset = DefaultToolset
	}
	if err := checkLimits(spec); err != nil {
		return nil, err
	}
	schema, err := parseSchema(spec.Name, spec.Parameters)
	if err != nil {
		return nil, err
	}
	if spec.PathArg != "" {
		if _, ok := schema.props[spec.PathArg]; !ok {
			return nil, fmt.Errorf("tool %q: PathArg %q is not a property of its parameters schema", spec.Name, spec.PathArg)
		}
	}
	params := emptyParameters
	if len(bytes.TrimSpace(spec.Parameters)) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, spec.Parameters); err != nil {
			return nil, fmt.Errorf("tool %q: parameters schema is not valid JSON: %v", spec.Name, err)
		}
		params = buf.Bytes()
	}
	return &entry{tool: t, spec: spec, schema: schema, params: params}, nil
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
	r.tab.mu.RLock()
	e, ok := r.tab.entries[name]
	r.tab.mu.RUnlock()
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
// with its schema, compiled on first use (see Schema.Prepare).
func (r *Registry) Prepare(name, raw string) (json.RawMessage, *Error) {
	r.tab.mu.RLock()
	e, ok := r.tab.entries[name]
	r.tab.mu.RUnlock()
	if !ok {
		return nil, Errorf(CodeNotFound, "there is no tool named %q", name)
	}
	return e.schema.Prepare(raw)
}

// Refresh forgets the cached availability of every tool, so the next query
// asks each Availability tool again (after the configuration or the
// environment changed, or an MCP server went away or came back). Every
// view made by Select refreshes too.
func (r *Registry) Refresh() {
	r.tab.gen.Add(1)
}

// Generation counts the changes to the tools r shares with its views, a
// Refresh included: a registry made of r's tools at an older generation
// may lack a tool or its availability since.
func (r *Registry) Generation() uint64 { return r.tab.gen.Load() }

// lookup returns the entry of an offered tool (selected and available).
func (r *Registry) lookup(name string) (*entry, bool) {
	e, ok := r.snapshot().offered[name]
	return e, ok
}
