package config

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// The decoder walks the yaml.Node tree itself instead of calling
// yaml.Unmarshal, because a person fixing a file needs every problem at
// once with its line, and an unknown key is a warning rather than a
// failure. It fills the fields a document mentions and leaves the rest as
// they were, so decoding onto Defaults() overlays the file on the defaults.

// Guards against documents built to exhaust the walker: aliases let a small
// file describe a huge tree, and an anchor may even contain itself.
const (
	maxNodes = 100_000
	maxDepth = 100
)

var nodeType = reflect.TypeOf(yaml.Node{})

// decoder fills a value from a parsed YAML document and records, for each
// key it sets, the line the value came from.
type decoder struct {
	file    string // "config.yaml" in messages; empty for a value given to Set
	errs    []error
	warns   []string
	origins map[string]string
	budget  int
	tooDeep bool
	// hermes is the set of Hermes Agent's keys, read at the first key the
	// configuration does not have; unhonoured are the ones of them met
	// set to other than Hermes's default, hermesSeen counts all met.
	hermes     map[string]string
	unhonoured []string
	hermesSeen int
}

func newDecoder(file string, origins map[string]string) *decoder {
	return &decoder{file: file, origins: origins, budget: maxNodes}
}

// where names a node's place in the file, such as "config.yaml:7".
func (d *decoder) where(n *yaml.Node) string {
	if d.file == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", d.file, n.Line)
}

// warn records a warning prefixed with the node's place.
func (d *decoder) warn(n *yaml.Node, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if w := d.where(n); w != "" {
		msg = w + ": " + msg
	}
	d.warns = append(d.warns, msg)
}

// enter spends one node of the budget and reports whether to go on.
func (d *decoder) enter(depth int) bool {
	d.budget--
	if d.budget < 0 || depth > maxDepth {
		if !d.tooDeep {
			d.tooDeep = true
			d.errs = append(d.errs, fmt.Errorf("%s: the document nests or repeats aliases too deeply to read", d.file))
		}
		return false
	}
	return true
}

// decode sets v, reached by key, from node n.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, key, check string, depth int) {
	if !d.enter(depth) {
		return
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return
		}
		d.decode(n.Alias, v, key, check, depth+1)
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if key != "" && d.origins != nil {
		d.origins[key] = d.where(n)
	}
	t := v.Type()
	switch {
	case t == nodeType:
		v.Set(reflect.ValueOf(*n))
	case isLeaf(t):
		if n.Kind != yaml.ScalarNode {
			d.errs = append(d.errs, &FieldError{Source: d.where(n), Key: key, Message: kindName(n) + " is not accepted; use a single value"})
			return
		}
		if p := parseLeaf(v, n.Value, check); p != "" {
			shown := n.Value
			if t == secretType {
				shown = Redact(shown)
			}
			d.errs = append(d.errs, badValue(d.where(n), key, shown, p))
		}
	case t.Kind() == reflect.Struct:
		d.decodeStruct(n, v, key, depth)
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		d.decodeMap(n, v, key, depth)
	case t.Kind() == reflect.Slice:
		d.decodeSlice(n, v, key, depth)
	default:
		if err := n.Decode(v.Addr().Interface()); err != nil {
			d.errs = append(d.errs, &FieldError{Source: d.where(n), Key: key, Message: "is not accepted: " + err.Error()})
		}
	}
}

// shorthand is implemented by sections that may be written as one scalar
// or list standing for one of their keys, the way Hermes accepts `model:
// some/model` for model.default, `long_term: false` stands for
// long_term.enabled, and a list of hosts for website_blocklist.domains.
type shorthand interface {
	shorthandKey() string
}

func (*Model) shorthandKey() string { return "default" }

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, key string, depth int) {
	t := v.Type()
	if n.Kind == yaml.ScalarNode || n.Kind == yaml.SequenceNode {
		if sh, ok := v.Addr().Interface().(shorthand); ok {
			if f, ok := fieldByName(t, sh.shorthandKey()); ok {
				d.decode(n, v.Field(f.index), appendKey(key, f.name), f.check, depth+1)
				return
			}
		}
	}
	if n.Kind != yaml.MappingNode {
		d.errs = append(d.errs, &FieldError{Source: d.where(n), Key: key, Message: kindName(n) + " is not accepted; use a mapping of keys"})
		return
	}
	d.pairs(n, key, depth, func(k, val *yaml.Node) {
		f, ok := fieldByName(t, k.Value)
		if !ok {
			full := appendKey(key, k.Value)
			if d.hermesKey(full, val, depth+1) {
				return
			}
			var sugg []string
			for _, s := range suggest(k.Value, fieldNames(t)) {
				sugg = append(sugg, appendKey(key, s))
			}
			d.warn(k, "%s", unknownKeyText(full, sugg))
			return
		}
		d.decode(val, v.Field(f.index), appendKey(key, f.name), f.check, depth+1)
	})
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, key string, depth int) {
	if n.Kind != yaml.MappingNode {
		d.errs = append(d.errs, &FieldError{Source: d.where(n), Key: key, Message: kindName(n) + " is not accepted; use a mapping of names"})
		return
	}
	t := v.Type()
	d.pairs(n, key, depth, func(k, val *yaml.Node) {
		mk := reflect.ValueOf(k.Value).Convert(t.Key())
		elem := reflect.New(t.Elem()).Elem()
		if old := v.MapIndex(mk); old.IsValid() {
			elem.Set(old)
		}
		d.decode(val, elem, appendKey(key, k.Value), "", depth+1)
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		v.SetMapIndex(mk, elem)
	})
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, key string, depth int) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		// One value where a list is expected is a list of one
		// ("deliver: wecom:KEY", "toolsets: web").
		s := reflect.MakeSlice(v.Type(), 1, 1)
		d.decode(n, s.Index(0), key+"[0]", "", depth+1)
		v.Set(s)
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errs = append(d.errs, &FieldError{Source: d.where(n), Key: key, Message: kindName(n) + " is not accepted; use a list"})
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, s.Index(i), fmt.Sprintf("%s[%d]", key, i), "", depth+1)
	}
	v.Set(s)
}

// pairs calls fn for each key and value of mapping n. Mappings merged in
// with "<<: *anchor" come first, so the keys written beside the merge win,
// as YAML says. A key written twice is reported; the later one wins.
func (d *decoder) pairs(n *yaml.Node, key string, depth int, fn func(k, v *yaml.Node)) {
	seen := map[string]int{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, n.Content[i+1])
		}
	}
	for _, m := range merges {
		d.merge(m, key, depth+1, fn)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.warn(k, "%s: a key that is not a plain name is ignored", orRoot(key))
			continue
		}
		if line, ok := seen[k.Value]; ok {
			d.warn(k, "key %q is repeated (first on line %d); the later one wins", appendKey(key, k.Value), line)
		}
		seen[k.Value] = k.Line
		fn(k, val)
	}
}

// merge feeds the pairs of a merged mapping (or list of mappings) to fn.
func (d *decoder) merge(m *yaml.Node, key string, depth int, fn func(k, v *yaml.Node)) {
	if !d.enter(depth) {
		return
	}
	if m.Kind == yaml.AliasNode && m.Alias != nil {
		d.merge(m.Alias, key, depth+1, fn)
		return
	}
	switch m.Kind {
	case yaml.MappingNode:
		d.pairs(m, key, depth, fn)
	case yaml.SequenceNode:
		for _, item := range m.Content {
			d.merge(item, key, depth+1, fn)
		}
	default:
		d.warn(m, "%s: \"<<\" needs a mapping to merge; ignored", orRoot(key))
	}
}

func orRoot(key string) string {
	if key == "" {
		return "top level"
	}
	return key
}

// kindName describes a node's shape for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "this value"
}
