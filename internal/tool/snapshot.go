package tool

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// snapshot is everything the per-iteration queries need, computed once
// after each change of the registry and then only read.
type snapshot struct {
	// gen is the table generation the snapshot was built from.
	gen uint64
	// all lists every registered entry sorted by name.
	all []*entry
	// infos parallels all with selection and availability.
	infos []Info
	// specs and offeredNames describe the offered tools, sorted by name.
	specs        []llm.ToolSpec
	offeredNames []string
	offered      map[string]*entry
	// folded maps lower-case and normalized spellings of offered names to
	// the canonical names that have them, for name repair.
	folded     map[string][]string
	normalized map[string][]string
	// unavailable holds the reason of each unavailable selected tool, so a
	// call of one can say why it is missing.
	unavailable map[string]string
}

// snapshot returns the current snapshot, building it when the registry
// changed since the last one.
func (r *Registry) snapshot() *snapshot {
	gen := r.tab.gen.Load()
	if s := r.snap.Load(); s != nil && s.gen == gen {
		return s
	}
	r.bmu.Lock()
	defer r.bmu.Unlock()
	r.tab.mu.RLock()
	defer r.tab.mu.RUnlock()
	gen = r.tab.gen.Load() // changes hold tab.mu, so gen is stable now
	if s := r.snap.Load(); s != nil && s.gen == gen {
		return s
	}
	s := r.build()
	s.gen = gen
	r.snap.Store(s)
	return s
}

// build computes a snapshot; r.tab.mu is held for reading. Availability is asked here, once
// per snapshot, because Available may look for binaries or keys and the
// loop must not pay for that on every iteration.
func (r *Registry) build() *snapshot {
	s := &snapshot{
		offered:     map[string]*entry{},
		folded:      map[string][]string{},
		normalized:  map[string][]string{},
		unavailable: map[string]string{},
	}
	for _, e := range r.tab.entries {
		s.all = append(s.all, e)
	}
	slices.SortFunc(s.all, func(a, b *entry) int { return strings.Compare(a.spec.Name, b.spec.Name) })
	for _, e := range s.all {
		info := Info{
			Name:        e.spec.Name,
			Toolset:     e.spec.Toolset,
			Description: firstLine(e.spec.Description),
			Available:   true,
			Selected:    r.sel.selected(e.spec.Toolset),
		}
		if reason := unavailableReason(e.tool); reason != "" {
			info.Available, info.Reason = false, reason
		}
		s.infos = append(s.infos, info)
		if !info.Selected {
			continue
		}
		if !info.Available {
			s.unavailable[e.spec.Name] = info.Reason
			continue
		}
		name := e.spec.Name
		s.offered[name] = e
		s.offeredNames = append(s.offeredNames, name)
		s.specs = append(s.specs, llm.ToolSpec{Name: name, Description: e.spec.Description, Parameters: e.params})
		lower := strings.ToLower(name)
		s.folded[lower] = append(s.folded[lower], name)
		norm := normalizeName(name)
		s.normalized[norm] = append(s.normalized[norm], name)
	}
	return s
}

// unavailableReason asks an Availability tool whether it can run, turning
// a panic into a reason so one broken check cannot take the registry down.
func unavailableReason(t Tool) (reason string) {
	a, ok := t.(Availability)
	if !ok {
		return ""
	}
	defer func() {
		if p := recover(); p != nil {
			reason = fmt.Sprintf("availability check panicked: %v", p)
		}
	}()
	if err := a.Available(); err != nil {
		reason = shortError(err)
		if reason == "" {
			reason = "unavailable"
		}
	}
	return reason
}
