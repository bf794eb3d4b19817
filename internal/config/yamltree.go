package config

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Editing config.yaml: a value already written on one line is replaced in
// the text itself, so nothing else in the file moves; anything else (a new
// key, a section, a value behind an alias) is done on the node tree, which
// keeps comments and keys but lets the YAML encoder redo the spacing.

// editDocument returns data with the value at segs set to val. The tree
// edit is always made, as the reference; a text edit is used instead when
// it reads back as exactly the same YAML.
func editDocument(data []byte, segs []string, val *yaml.Node) ([]byte, error) {
	doc, multi, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	if multi {
		return nil, errors.New("config.yaml holds several YAML documents; edit it by hand")
	}
	tree, err := treeEdit(doc, data, segs, val)
	if err != nil || doc == nil {
		return tree, err
	}
	if doc, _, err = parseDoc(data); err != nil || doc == nil {
		return tree, nil
	}
	if out, ok := textEdit(data, doc.Content[0], segs, val); ok && sameYAML(out, tree) {
		return out, nil
	}
	return tree, nil
}

// treeEdit sets val at segs in the parsed document doc (nil for an empty
// file) and encodes the result.
func treeEdit(doc *yaml.Node, data []byte, segs []string, val *yaml.Node) ([]byte, error) {
	if doc == nil {
		doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	budget := maxNodes
	slot, err := ensure(&doc.Content[0], configType, segs, &budget)
	if err != nil {
		return nil, err
	}
	v := *val
	if old := *slot; old != nil {
		v.HeadComment, v.LineComment, v.FootComment = old.HeadComment, old.LineComment, old.FootComment
	}
	*slot = &v
	return encodeNode(doc, detectIndent(data))
}

// encodeNode writes a node tree as YAML.
func encodeNode(n *yaml.Node, indent int) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(indent)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("config: cannot write config.yaml: %v", err)
	}
	enc.Close()
	return b.Bytes(), nil
}

// sameYAML reports whether two documents hold the same data.
func sameYAML(a, b []byte) bool {
	var va, vb any
	if yaml.Unmarshal(a, &va) != nil || yaml.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// parseDoc parses the first document of data, keeping the document node
// (it carries the comments at the top of the file). It reports whether
// more documents follow. An empty file gives a nil document.
func parseDoc(data []byte) (doc *yaml.Node, multi bool, err error) {
	root, warns, err := parseYAML(data, "config.yaml")
	if err != nil || root == nil {
		return nil, false, err
	}
	var d yaml.Node
	if err := yaml.Unmarshal(data, &d); err != nil || d.Kind != yaml.DocumentNode || len(d.Content) == 0 {
		return nil, false, fmt.Errorf("config.yaml: cannot be read as YAML")
	}
	return &d, len(warns) > 0, nil
}

// childType is the type reached from t by one key segment.
func childType(t reflect.Type, seg string) reflect.Type {
	if t.Kind() == reflect.Struct {
		if f, ok := fieldByName(t, seg); ok {
			return t.Field(f.index).Type
		}
		return nil
	}
	return t.Elem()
}

// locate finds the node written for segs below n, or nil when it is not
// written, or is reached through an alias (editing it there would change
// every place the anchor is used).
func locate(n *yaml.Node, t reflect.Type, segs []string) *yaml.Node {
	for ; len(segs) > 0; segs = segs[1:] {
		if n.Kind == yaml.AliasNode || t == nil {
			return nil
		}
		var next *yaml.Node
		switch {
		case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
			if i, err := strconv.Atoi(segs[0]); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		case (t.Kind() == reflect.Struct || t.Kind() == reflect.Map) && n.Kind == yaml.MappingNode:
			if i := lastKey(n, segs[0]); i >= 0 {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		n, t = next, childType(t, segs[0])
	}
	if n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// lastKey is the index of the last key named name in mapping n (the one
// that wins), or -1.
func lastKey(n *yaml.Node, name string) int {
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Tag != "!!merge" && k.Value == name {
			return i
		}
	}
	return -1
}

// ensure returns the slot holding the node for segs below *slot, creating
// mappings, keys and list entries as needed. A node reached through an
// alias is replaced by a copy first, so the anchor's other uses keep their
// value; a scalar written for a section with a shorthand form (model:
// NAME) becomes the mapping it stands for.
func ensure(slot **yaml.Node, t reflect.Type, segs []string, budget *int) (**yaml.Node, error) {
	var key *yaml.Node // the mapping key of *slot, if any
	for ; len(segs) > 0; segs = segs[1:] {
		n := *slot
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			cp := deepCopy(n.Alias, budget)
			cp.HeadComment, cp.LineComment, cp.FootComment = n.HeadComment, n.LineComment, n.FootComment
			*slot, n = cp, cp
		}
		switch t.Kind() {
		case reflect.Struct, reflect.Map:
			if n.Kind != yaml.MappingNode {
				m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: n.HeadComment, FootComment: n.FootComment}
				comment := n.LineComment
				if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
					if sh, ok := reflect.New(t).Interface().(shorthand); ok {
						m.Content = append(m.Content, keyNode(sh.shorthandKey()),
							&yaml.Node{Kind: yaml.ScalarNode, Tag: n.Tag, Value: n.Value, Style: n.Style, LineComment: comment})
						comment = ""
					}
				}
				if key != nil && key.LineComment == "" {
					key.LineComment = comment
				}
				*slot, n = m, m
			}
			i := lastKey(n, segs[0])
			if i < 0 {
				n.Content = append(n.Content, keyNode(segs[0]), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"})
				i = len(n.Content) - 2
			}
			slot, key = &n.Content[i+1], n.Content[i]
		case reflect.Slice:
			if n.Kind != yaml.SequenceNode {
				s := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", HeadComment: n.HeadComment, FootComment: n.FootComment}
				if key != nil && key.LineComment == "" {
					key.LineComment = n.LineComment
				}
				*slot, n = s, s
			}
			i, err := strconv.Atoi(segs[0])
			if err != nil || i < 0 || i > len(n.Content) {
				return nil, fmt.Errorf("config: index %s is out of range in config.yaml", segs[0])
			}
			if i == len(n.Content) {
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"})
			}
			slot, key = &n.Content[i], nil
		default:
			return nil, fmt.Errorf("config: %s has no keys below it", segs[0])
		}
		t = childType(t, segs[0])
	}
	return slot, nil
}

// deepCopy copies a node tree without its anchors; aliases inside stay
// aliases of the anchors already written earlier in the file.
func deepCopy(n *yaml.Node, budget *int) *yaml.Node {
	cp := *n
	cp.Anchor = ""
	*budget--
	if *budget < 0 {
		cp.Content = nil
		return &cp
	}
	cp.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		cp.Content[i] = deepCopy(c, budget)
	}
	return &cp
}

// detectIndent guesses the file's indentation from its first indented
// line, so a rewritten file keeps its look; two spaces otherwise.
func detectIndent(data []byte) int {
	for _, line := range bytes.Split(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " ")
		n := len(line) - len(trimmed)
		if n > 0 && len(bytes.TrimSpace(trimmed)) > 0 && trimmed[0] != '#' && trimmed[0] != '-' {
			if n >= 2 && n <= 8 {
				return n
			}
			break
		}
	}
	return 2
}
