package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxNameLen is the longest tool name the model APIs accept (OpenAI and
// Anthropic both cap function names at 64 characters).
const maxNameLen = 64

// emptyParameters is offered to the model for a tool that declares no
// parameters: some providers reject a function without a schema.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// Schema is a tool's parameters schema compiled once, at registration, so
// each call pays only for validation. It prepares raw model arguments for
// the tool: parse, coerce leniently, validate.
type Schema struct {
	tool string
	root *jsonschema.Schema
}

// CompileSchema compiles the JSON Schema of a tool's arguments. An empty
// schema accepts any object. The schema must be self-contained: $ref may
// point inside the document only, so registering a tool never reads files
// or the network. The error names the tool and what is wrong.
func CompileSchema(toolName string, params json.RawMessage) (*Schema, error) {
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
	url := "mem://tool/" + toolName + ".json"
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseLoader(noLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %q: parameters schema: %v", toolName, err)
	}
	root, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %q: parameters schema is not a valid JSON Schema (draft 2020-12 unless $schema says otherwise): %s",
			toolName, shortError(err))
	}
	return &Schema{tool: toolName, root: root}, nil
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
