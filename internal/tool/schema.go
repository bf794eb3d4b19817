package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxNameLen is the longest tool name the model APIs accept (OpenAI and
// Anthropic both cap function names at 64 characters).
const maxNameLen = 64

// emptyParameters is offered to the model for a tool that declares no
// parameters: some providers reject a function without a schema.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// Schema is a tool's parameters schema, compiled once, so each call pays
// only for validation. It prepares raw model arguments for the tool:
// parse, coerce leniently, validate.
//
// A registry compiles a schema when its tool is first called, not when it
// is registered: compiling the thirty-odd built-in schemas (and, before
// the first, JSON Schema's own drafts) was a quarter of the CPU of a
// `hermes chat -q`, most of it for tools the turn never called. What
// registration still checks (valid JSON, an object at the top, PathArg)
// is cheap; tools from configuration or other servers are compiled when
// they are loaded (CompileSchema), so a broken one is refused there.
type Schema struct {
	tool   string
	params json.RawMessage
	// props are the top-level properties the schema declares.
	props map[string]any

	once sync.Once
	root *jsonschema.Schema
	err  error
}

// CompileSchema compiles the JSON Schema of a tool's arguments. An empty
// schema accepts any object. The schema must be self-contained: $ref may
// point inside the document only, so registering a tool never reads files
// or the network. The error names the tool and what is wrong.
func CompileSchema(toolName string, params json.RawMessage) (*Schema, error) {
	s, err := parseSchema(toolName, params)
	if err != nil {
		return nil, err
	}
	if _, err := s.compiled(); err != nil {
		return nil, err
	}
	return s, nil
}

// parseSchema checks what can be checked of a schema without compiling
// it, and returns it to be compiled on first use.
func parseSchema(toolName string, params json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		params = emptyParameters
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return nil, fmt.Errorf("tool %q: parameters schema is not valid JSON: %v", toolName, err)
	}
	if err := checkTopLevel(doc); err != nil {
		return nil, fmt.Errorf("tool %q: parameters schema: %v", toolName, err)
	}
	props, _ := doc.(map[string]any)["properties"].(map[string]any)
	return &Schema{tool: toolName, params: params, props: props}, nil
}

// compiled returns the compiled schema, compiling it the first time.
func (s *Schema) compiled() (*jsonschema.Schema, error) {
	s.once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.params))
		if err != nil {
			s.err = fmt.Errorf("tool %q: parameters schema is not valid JSON: %v", s.tool, err)
			return
		}
		url := "mem://tool/" + s.tool + ".json"
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		c.UseLoader(noLoader{})
		if err := c.AddResource(url, doc); err != nil {
			s.err = fmt.Errorf("tool %q: parameters schema: %v", s.tool, err)
			return
		}
		if s.root, err = c.Compile(url); err != nil {
			s.err = fmt.Errorf("tool %q: parameters schema is not a valid JSON Schema (draft 2020-12 unless $schema says otherwise): %s",
				s.tool, shortError(err))
		}
	})
	return s.root, s.err
}

// checkTopLevel rejects schemas whose arguments could not be an object:
// every provider sends a function's arguments as one JSON object.
func checkTopLevel(doc any) error {
	obj, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("got %s, want a JSON object such as {\"type\": \"object\", \"properties\": {...}}", jsonKind(doc))
	}
	switch t := obj["type"].(type) {
	case nil:
		return nil
	case string:
		if t == "object" {
			return nil
		}
		return fmt.Errorf("top-level \"type\" is %q, want \"object\": a tool's arguments are always a JSON object", t)
	case []any:
		for _, x := range t {
			if x == "object" {
				return nil
			}
		}
		return fmt.Errorf("top-level \"type\" does not include \"object\": a tool's arguments are always a JSON object")
	default:
		return fmt.Errorf("top-level \"type\" must be \"object\"")
	}
}

// noLoader refuses every external reference, so a schema cannot make the
// process read a file or fetch a URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not allowed: tool schemas must be self-contained (use $defs and \"#/$defs/...\")", url)
}

// checkName says why a tool name would be refused by the model APIs.
func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("tool name is empty")
	case len(name) > maxNameLen:
		return fmt.Errorf("tool name %q is %d characters long; at most %d are accepted", name, len(name), maxNameLen)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("tool name %q may only contain ASCII letters, digits, '_' and '-'", name)
		}
	}
	return nil
}

// jsonKind names the JSON type of a decoded value for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64, int, int64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// firstLine returns the first non-empty line of a description, trimmed.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}
