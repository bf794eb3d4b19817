package tool

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// AllToolsets in an enabled list selects every toolset.
const AllToolsets = "all"

// selection says which toolsets are offered: all of them, or the enabled
// ones; a disabled toolset is never offered.
type selection struct {
	all      bool
	enabled  map[string]bool
	disabled map[string]bool
}

func (s selection) selected(toolset string) bool {
	if s.disabled[toolset] {
		return false
	}
	return s.all || s.enabled[toolset]
}

// Info describes one registered tool for listings such as
// "hermes tools list --json".
type Info struct {
	Name    string `json:"name"`
	Toolset string `json:"toolset"`
	// Description is the first line of the tool's description.
	Description string `json:"description"`
	// Available is false when the tool's requirements are missing; Reason
	// then says which.
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	// Selected reports whether the tool's toolset is enabled. The model is
	// offered the tools that are both selected and available.
	Selected bool `json:"selected"`
}

// Infos describes every registered tool under this registry's selection,
// sorted by name, including the tools not offered to the model and why.
func (r *Registry) Infos() []Info {
	return slices.Clone(r.snapshot().infos)
}

// List describes every registered tool as the selection enabled/disabled
// would offer it (the rules and errors of Select), for "hermes tools list":
// the command shows what a configuration or a --toolsets flag would give
// without building an engine.
func (r *Registry) List(enabled, disabled []string) ([]Info, error) {
	sel, err := r.Select(enabled, disabled)
	if err != nil {
		return nil, err
	}
	return sel.Infos(), nil
}

// Expect names toolsets whose tools are not registered yet but will be
// (the tools of an MCP server still connecting), so that Select accepts
// them instead of calling them typos; their tools are offered once they
// arrive.
func (r *Registry) Expect(toolsets ...string) {
	r.tab.mu.Lock()
	defer r.tab.mu.Unlock()
	if r.tab.expected == nil {
		r.tab.expected = map[string]bool{}
	}
	for _, name := range toolsets {
		r.tab.expected[name] = true
	}
}

// Toolsets returns the names of the toolsets registered tools belong to,
// and of expected ones, sorted.
func (r *Registry) Toolsets() []string {
	r.tab.mu.RLock()
	defer r.tab.mu.RUnlock()
	return r.toolsetsLocked()
}

func (r *Registry) toolsetsLocked() []string {
	set := maps.Clone(r.tab.expected)
	if set == nil {
		set = map[string]bool{}
	}
	for _, e := range r.tab.entries {
		set[e.spec.Toolset] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// Select returns a registry holding the same tools with only some toolsets
// offered to the model. An empty enabled list, or one containing "all",
// enables every toolset; a toolset in disabled is off even when enabled
// names it. Naming a toolset no registered tool belongs to is an error
// that lists the known ones, since it is almost always a typo in the
// configuration. The receiver's selection is not changed; the two share
// their tools, so a tool registered or swapped on either is seen by both.
func (r *Registry) Select(enabled, disabled []string) (*Registry, error) {
	r.tab.mu.RLock()
	defer r.tab.mu.RUnlock()
	known := r.toolsetsLocked()
	sel := selection{enabled: map[string]bool{}, disabled: map[string]bool{}}
	var unknown []string
	for _, name := range enabled {
		name = strings.TrimSpace(name)
		switch {
		case name == AllToolsets:
			sel.all = true
		case slices.Contains(known, name):
			sel.enabled[name] = true
		default:
			unknown = append(unknown, name)
		}
	}
	if len(sel.enabled) == 0 && !sel.all && len(unknown) == 0 {
		sel.all = true
	}
	for _, name := range disabled {
		name = strings.TrimSpace(name)
		if slices.Contains(known, name) {
			sel.disabled[name] = true
		} else {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown toolset %s; known toolsets: %s (or %q for every toolset)",
			quoteList(unknown), strings.Join(known, ", "), AllToolsets)
	}
	return &Registry{tab: r.tab, sel: sel}, nil
}

// quoteList renders names as "a", "b".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
