package openapi

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Document is a parsed OpenAPI 3 document. It keeps the decoded tree as
// plain maps and lists, plus the order in which paths and methods were
// written, so generated tools come out in the order a reader of the
// document expects.
type Document struct {
	// OpenAPI is the version in the document's openapi field ("3.0.3").
	OpenAPI string
	// Title and Version come from the info object.
	Title   string
	Version string

	root  map[string]any
	paths []pathOrder
}

// pathOrder is one path key and the methods under it, in document order.
type pathOrder struct {
	path    string
	methods []string
}

// methods are the operation keys of a path item, in the order OpenAPI
// lists them; other keys of a path item (parameters, summary, servers) are
// not operations.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Parse reads an OpenAPI 3.0.x or 3.1.x document written in JSON or YAML.
// Swagger 2.0 documents are refused with advice to convert them, since
// their parameter and body model differs too much to read both.
func Parse(data []byte) (*Document, error) {
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		return nil, fmt.Errorf("openapi: document is neither valid JSON nor valid YAML: %w", err)
	}
	if node.Kind == 0 || len(node.Content) == 0 {
		return nil, errors.New("openapi: document is empty")
	}
	var raw any
	if err := node.Decode(&raw); err != nil {
		return nil, fmt.Errorf("openapi: decoding document: %w", err)
	}
	root, ok := normalize(raw).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("openapi: document is %s, want a mapping with openapi, info and paths", kind(raw))
	}
	if v, ok := root["swagger"]; ok {
		return nil, fmt.Errorf("openapi: this is a Swagger %v document; only OpenAPI 3.0 and 3.1 are read: convert it first "+
			"(for example with https://converter.swagger.io or `npx swagger2openapi`)", v)
	}
	// Versions are read from the nodes, not the decoded values: an
	// unquoted "openapi: 3.0" decodes as the number 3.
	top := node.Content[0]
	version := scalarText(mappingValue(top, "openapi"), root["openapi"])
	switch {
	case version == "":
		return nil, errors.New(`openapi: the document has no "openapi" field; want an OpenAPI 3.0 or 3.1 document (openapi: 3.0.3)`)
	case !strings.HasPrefix(version, "3.0") && !strings.HasPrefix(version, "3.1"):
		return nil, fmt.Errorf("openapi: openapi version %q is not supported; 3.0.x and 3.1.x are", version)
	}
	d := &Document{OpenAPI: version, root: root}
	if info, ok := root["info"].(map[string]any); ok {
		infoNode := mappingValue(top, "info")
		d.Title = scalarText(mappingValue(infoNode, "title"), info["title"])
		d.Version = scalarText(mappingValue(infoNode, "version"), info["version"])
	}
	if _, ok := root["paths"]; ok {
		if _, isMap := root["paths"].(map[string]any); !isMap && root["paths"] != nil {
			return nil, fmt.Errorf("openapi: paths is %s, want a mapping of paths to path items", kind(root["paths"]))
		}
	}
	d.paths = orderPaths(&node, root)
	return d, nil
}

// is31 reports whether schemas are JSON Schema 2020-12 already (OpenAPI
// 3.1) rather than OpenAPI 3.0's dialect.
func (d *Document) is31() bool { return strings.HasPrefix(d.OpenAPI, "3.1") }

// orderPaths lists paths and their methods in document order. Keys the
// node walk cannot see (reached through YAML merge keys) follow, sorted.
func orderPaths(node *yaml.Node, root map[string]any) []pathOrder {
	paths, _ := root["paths"].(map[string]any)
	var keys []string
	methodKeys := map[string][]string{}
	if pn := mappingValue(node.Content[0], "paths"); pn != nil {
		for i := 0; i+1 < len(pn.Content); i += 2 {
			p := pn.Content[i].Value
			keys = append(keys, p)
			item := pn.Content[i+1]
			for item.Kind == yaml.AliasNode {
				item = item.Alias
			}
			for j := 0; j+1 < len(item.Content); j += 2 {
				if m := strings.ToLower(item.Content[j].Value); slices.Contains(methods, m) {
					methodKeys[p] = append(methodKeys[p], m)
				}
			}
		}
	}
	var rest []string
	for p := range paths {
		if !slices.Contains(keys, p) {
			rest = append(rest, p)
		}
	}
	slices.Sort(rest)
	var out []pathOrder
	for _, p := range append(keys, rest...) {
		item, ok := paths[p].(map[string]any)
		if !ok {
			continue
		}
		ms := methodKeys[p]
		for _, m := range methods {
			if _, ok := item[m]; ok && !slices.Contains(ms, m) {
				ms = append(ms, m)
			}
		}
		out = append(out, pathOrder{path: p, methods: ms})
	}
	return out
}

// mappingValue returns the value node of key in a mapping node, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for m != nil && m.Kind == yaml.AliasNode {
		m = m.Alias
	}
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// normalize turns the decoder's map[any]any (YAML allows unquoted
// response codes such as 200: as keys) into map[string]any everywhere, so
// the rest of the package sees one shape, the shape JSON would give.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	}
	return v
}

// scalarString renders a scalar as text: versions are often written
// unquoted (version: 1.0) and decode as numbers.
func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int, int64, float64, bool:
		return fmt.Sprint(x), true
	}
	return "", false
}

// scalarText is the text of a scalar node as written, or the decoded
// value rendered when the node is not a plain scalar.
func scalarText(n *yaml.Node, v any) string {
	if n != nil && n.Kind == yaml.ScalarNode {
		return n.Value
	}
	s, _ := scalarString(v)
	return s
}

// kind names the shape of a decoded value for error messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "empty"
	case map[string]any, map[any]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "a string"
	}
	return fmt.Sprintf("a %T", v)
}
