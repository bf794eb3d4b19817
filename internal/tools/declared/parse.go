package declared

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/tools/declared/sqlexec"
)

// parsedFile is what one tools file holds: its tools (valid or with their
// problems) and its connections. A YAML syntax error leaves only
// syntaxErr set.
type parsedFile struct {
	display   string
	data      string
	specs     []parsedSpec
	conns     []parsedConn
	syntaxErr *Problem
	problems  []Problem // problems of the file as a whole (bad top level)
}

// parsedSpec is one entry of tools:. Tool is nil when problems is not
// empty.
type parsedSpec struct {
	name     string
	line     int
	tool     *Tool
	problems []Problem
}

// parsedConn is one entry of connections:.
type parsedConn struct {
	name string
	line int
	conn sqlexec.Connection
	dir  string
}

// yamlLine finds the line number yaml.v3 puts in its error messages.
var yamlLine = lazy.Regexp{Expr: `line (\d+)`}

// parseFile parses one tools file. display names it in problems; dir is
// its directory, against which command.dir and sqlite paths resolve.
func parseFile(display, dir string, data []byte, b builder) parsedFile {
	pf := parsedFile{display: display, data: string(data)}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		p := Problem{File: display}
		if m := yamlLine.Get().FindStringSubmatch(msg); m != nil && strings.HasPrefix(msg, m[0]+": ") {
			p.Line, _ = strconv.Atoi(m[1])
			msg = strings.TrimPrefix(msg, m[0]+": ")
		}
		p.Err = fmt.Errorf("not valid YAML: %s", msg)
		pf.syntaxErr = &p
		return pf
	}
	if len(doc.Content) == 0 {
		return pf // an empty file declares nothing
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		pf.problems = append(pf.problems, Problem{File: display, Line: root.Line,
			Err: errors.New("the file must be a mapping with a tools: list (and optionally connections:)")})
		return pf
	}
	if conns := mapValue(root, "connections"); conns != nil {
		pf.conns, pf.problems = parseConnections(display, dir, conns, pf.problems)
	}
	tools := mapValue(root, "tools")
	if tools == nil || (tools.Kind == yaml.ScalarNode && tools.Tag == "!!null") {
		return pf
	}
	if tools.Kind == yaml.MappingNode && display == "config.yaml" {
		// Hermes Agent's config.yaml has a mapping of its own tool
		// settings here (see config's hermes.go), declaring nothing.
		return pf
	}
	if tools.Kind != yaml.SequenceNode {
		pf.problems = append(pf.problems, Problem{File: display, Line: tools.Line,
			Err: errors.New("tools: must be a list of tools (each starting with \"- name: ...\")")})
		return pf
	}
	for _, item := range tools.Content {
		pf.specs = append(pf.specs, b.parseSpec(display, dir, item))
	}
	return pf
}

// parseConnections decodes the connections: mapping.
func parseConnections(display, dir string, n *yaml.Node, problems []Problem) ([]parsedConn, []Problem) {
	if n.Kind != yaml.MappingNode {
		return nil, append(problems, Problem{File: display, Line: n.Line,
			Err: errors.New("connections: must be a mapping of names to {driver, dsn}")})
	}
	var out []parsedConn
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, val := n.Content[i].Value, n.Content[i+1]
		var c sqlexec.Connection
		if err := val.Decode(&c); err != nil {
			problems = append(problems, Problem{File: display, Line: val.Line,
				Err: fmt.Errorf("connections.%s: %s", name, yamlErr(err))})
			continue
		}
		if err := checkKeys(val, reflect.TypeFor[sqlexec.Connection](), "connections."+name); err != nil {
			problems = append(problems, Problem{File: display, Line: val.Line, Err: err})
			continue
		}
		out = append(out, parsedConn{name: name, line: n.Content[i].Line, conn: c, dir: dir})
	}
	return out, problems
}

// mapValue returns the value of key in a mapping node, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// fieldLine returns the line of a field given as a path such as
// "http.query.from" or "command.argv[1]", or of the deepest part of it
// that exists.
func fieldLine(n *yaml.Node, path string) int {
	line := n.Line
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' }) {
		if idx, err := strconv.Atoi(strings.TrimSuffix(part, "]")); err == nil && strings.HasSuffix(part, "]") {
			if n.Kind != yaml.SequenceNode || idx < 0 || idx >= len(n.Content) {
				return line
			}
			n = n.Content[idx]
			line = n.Line
			continue
		}
		v := mapValue(n, part)
		if v == nil {
			return line
		}
		n, line = v, v.Line
	}
	return line
}

// yamlErr shortens a yaml.v3 decoding error.
func yamlErr(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// checkKeys rejects keys of a mapping that the type it decodes into does
// not know, so a misspelt key ("descripton") is an error rather than a
// silently missing setting. Nested blocks are checked by their callers.
func checkKeys(n *yaml.Node, t reflect.Type, where string) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	known := yamlKeys(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if !slices.Contains(known, k) {
			prefix := ""
			if where != "" {
				prefix = where + "."
			}
			return fmt.Errorf("%s%s: unknown key; accepted keys are %s", prefix, k, strings.Join(known, ", "))
		}
	}
	return nil
}

// yamlKeys lists the yaml key names of a struct type.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}
