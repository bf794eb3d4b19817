package config

import (
	"bytes"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Get returns the effective value of key after every layer, as text: a
// leaf as a person would type it back ("2m", "90", "openrouter"), secrets
// in full since the key was asked for by name; a section as YAML with
// secrets redacted, the way Show renders it. An unknown key is an error
// naming the closest known keys.
func (l *Loaded) Get(key string) (string, error) {
	segs, err := splitKey(key)
	if err != nil {
		return "", err
	}
	root := reflect.ValueOf(&l.Config).Elem()
	var out string
	err = walk(root, segs, nil, false, func(v reflect.Value, _ string) error {
		if isLeaf(v.Type()) {
			out = formatLeaf(v)
		} else {
			out = renderYAML(toNode(v, ""))
		}
		return nil
	})
	if uk, ok := err.(*UnknownKeyError); ok {
		uk.Suggestions = keySuggestions(root, uk.Key)
	}
	return out, err
}

// Show renders the effective configuration as YAML, every key included,
// with secrets redacted: api_key fields, and free-form values (such as
// provider headers) that look like credentials.
func (l *Loaded) Show() string {
	return renderYAML(toNode(reflect.ValueOf(l.Config), ""))
}

// renderYAML encodes a node tree with two-space indentation.
func renderYAML(n *yaml.Node) string {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return ""
	}
	enc.Close()
	return b.String()
}

// toNode builds the YAML node of v for display. name is the map key v was
// found under, which decides whether a free-form value is redacted.
func toNode(v reflect.Value, name string) *yaml.Node {
	t := v.Type()
	switch {
	case t == nodeType:
		n := v.Interface().(yaml.Node)
		return &n
	case isLeaf(t):
		s := formatLeaf(v)
		switch {
		case t == secretType && s != "":
			s = Redact(s)
		case name != "" && t.Kind() == reflect.String && looksSecret(name, s):
			s = Redact(s)
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: yamlTag(t), Value: strings.ToValidUTF8(s, "\uFFFD")}
	case t.Kind() == reflect.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, f := range fieldsOf(t) {
			n.Content = append(n.Content, keyNode(f.name), toNode(v.Field(f.index), ""))
		}
		return n
	case t.Kind() == reflect.Map:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if v.Len() == 0 {
			n.Style = yaml.FlowStyle
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			n.Content = append(n.Content, keyNode(k.String()), toNode(v.MapIndex(k), k.String()))
		}
		return n
	case t.Kind() == reflect.Slice:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if v.Len() == 0 {
			n.Style = yaml.FlowStyle
		}
		for i := 0; i < v.Len(); i++ {
			n.Content = append(n.Content, toNode(v.Index(i), ""))
		}
		return n
	}
	var n yaml.Node
	if v.CanInterface() && n.Encode(v.Interface()) == nil {
		return &n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
}

// keyNode is a mapping key.
func keyNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.ToValidUTF8(s, "\uFFFD")}
}
