package openapi

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// operation is one method under one path, before it is resolved.
type operation struct {
	method     string // lower case, as in the document
	path       string
	id         string // operationId, may be empty
	tags       []string
	deprecated bool
	op         map[string]any // the operation object, refs unresolved
	item       map[string]any // its path item, refs unresolved
}

// label names the operation in warnings and errors: "GET /pets (listPets)".
func (o *operation) label() string {
	s := strings.ToUpper(o.method) + " " + o.path
	if o.id != "" {
		s += " (" + o.id + ")"
	}
	return s
}

// operations lists the document's operations in document order. A path
// item that is itself a $ref is followed; one that cannot be is reported
// in the warnings and left out.
func (d *Document) operations() ([]*operation, []string) {
	paths, _ := d.root["paths"].(map[string]any)
	var ops []*operation
	var warnings []string
	for _, po := range d.paths {
		item, _ := paths[po.path].(map[string]any)
		if ref, ok := item["$ref"].(string); ok {
			target, err := d.lookupShallow(ref)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("skipped path %s: %v", po.path, err))
				continue
			}
			item = target
			po.methods = nil
			for _, m := range methods {
				if _, ok := item[m]; ok {
					po.methods = append(po.methods, m)
				}
			}
		}
		for _, m := range po.methods {
			op, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			o := &operation{method: m, path: po.path, op: op, item: item}
			o.id, _ = op["operationId"].(string)
			o.deprecated = op["deprecated"] == true
			if tags, ok := op["tags"].([]any); ok {
				for _, t := range tags {
					if s, ok := t.(string); ok {
						o.tags = append(o.tags, s)
					}
				}
			}
			ops = append(ops, o)
		}
	}
	return ops, warnings
}

// lookupShallow follows one ref to a mapping without expanding what is
// inside it.
func (d *Document) lookupShallow(ref string) (map[string]any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, &ExternalRefError{Ref: ref}
	}
	v, err := newResolver(d.root).lookup(ref)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("openapi: $ref %q points to %s, want a mapping", ref, kind(v))
	}
	return m, nil
}

// selection is the operations an Include list picked, in document order,
// and which of them were named one by one (by operationId or by method
// and path) rather than by a glob or a tag.
type selection struct {
	ops      []*operation
	explicit map[*operation]bool
}

// selectOps applies Options.Include. Every entry must match at least one
// operation, so a typo is reported instead of silently importing less.
func selectOps(all []*operation, include []string) (selection, error) {
	sel := selection{explicit: map[*operation]bool{}}
	if len(include) == 0 {
		sel.ops = all
		return sel, nil
	}
	picked := map[*operation]bool{}
	for _, entry := range include {
		entry = strings.TrimSpace(entry)
		matched := 0
		for _, o := range all {
			hit, explicit := matches(o, entry)
			if !hit {
				continue
			}
			matched++
			picked[o] = true
			if explicit {
				sel.explicit[o] = true
			}
		}
		if matched == 0 {
			return sel, fmt.Errorf("openapi: include entry %q matches no operation; entries are operationIds, globs of them (pets*), "+
				"\"METHOD /path\" or \"tag:NAME\"; the document has: %s", entry, strings.Join(available(all), ", "))
		}
	}
	for _, o := range all {
		if picked[o] {
			sel.ops = append(sel.ops, o)
		}
	}
	return sel, nil
}

// matches reports whether one Include entry selects o, and whether it
// names o on its own.
func matches(o *operation, entry string) (hit, explicit bool) {
	if tag, ok := strings.CutPrefix(entry, "tag:"); ok {
		return slices.ContainsFunc(o.tags, func(t string) bool { return strings.EqualFold(t, strings.TrimSpace(tag)) }), false
	}
	if method, p, ok := strings.Cut(entry, " "); ok && slices.Contains(methods, strings.ToLower(method)) {
		p = strings.TrimSpace(p)
		same := strings.EqualFold(method, o.method) && (p == o.path || strings.TrimSuffix(p, "/") == strings.TrimSuffix(o.path, "/"))
		return same, same
	}
	if strings.ContainsAny(entry, "*?[") {
		a, _ := path.Match(entry, o.id)
		b, _ := path.Match(entry, baseName(o))
		return o.id != "" && a || b, false
	}
	hit = entry == o.id || entry == baseName(o)
	return hit, hit
}

// available lists operations the way an Include entry can name them.
func available(all []*operation) []string {
	out := make([]string, 0, len(all))
	for _, o := range all {
		if o.id != "" {
			out = append(out, o.id)
		} else {
			out = append(out, strings.ToUpper(o.method)+" "+o.path)
		}
	}
	return out
}
