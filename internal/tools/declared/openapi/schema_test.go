package openapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

func TestConvert30(t *testing.T) {
	tests := []struct {
		name     string
		in, want map[string]any
	}{
		{"nullable", map[string]any{"type": "string", "nullable": true},
			map[string]any{"type": []any{"string", "null"}}},
		{"nullable enum", map[string]any{"type": "string", "enum": []any{"a"}, "nullable": true},
			map[string]any{"type": []any{"string", "null"}, "enum": []any{"a", nil}}},
		{"exclusive minimum", map[string]any{"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false},
			map[string]any{"type": "number", "exclusiveMinimum": 0, "maximum": 9}},
		{"example", map[string]any{"type": "string", "example": "Rex"},
			map[string]any{"type": "string", "examples": []any{"Rex"}}},
		{"openapi-only keywords", map[string]any{"type": "object", "discriminator": map[string]any{"propertyName": "k"}, "xml": map[string]any{}, "x-go-type": "T"},
			map[string]any{"type": "object"}},
		{"readOnly left out", map[string]any{"type": "object", "required": []any{"id", "name"}, "properties": map[string]any{
			"id": map[string]any{"type": "integer", "readOnly": true}, "name": map[string]any{"type": "string"}}},
			map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
		{"integral float", map[string]any{"type": "number", "minimum": 1.0, "maximum": 2.5},
			map[string]any{"type": "number", "minimum": 1, "maximum": 2.5}},
		{"allOf of objects flattened", map[string]any{"allOf": []any{
			map[string]any{"type": "object", "required": []any{"a"}, "properties": map[string]any{"a": map[string]any{"type": "string"}}},
			map[string]any{"properties": map[string]any{"b": map[string]any{"type": "integer"}}, "description": "B."}}},
			map[string]any{"type": "object", "required": []any{"a"}, "description": "B.", "properties": map[string]any{
				"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "integer"}}}},
		{"allOf with a oneOf kept", map[string]any{"allOf": []any{
			map[string]any{"oneOf": []any{map[string]any{"type": "string"}}}}},
			map[string]any{"allOf": []any{map[string]any{"oneOf": []any{map[string]any{"type": "string"}}}}}},
		{"swagger habits dropped", map[string]any{"type": "string", "required": true, "examples": map[string]any{"a": map[string]any{"value": "x"}}},
			map[string]any{"type": "string"}},
		{"nested", map[string]any{"type": "array", "items": map[string]any{"type": "integer", "nullable": true, "example": 3}},
			map[string]any{"type": "array", "items": map[string]any{"type": []any{"integer", "null"}, "examples": []any{3}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := converter{oas30: true}.convert(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestConvert31KeepsTypeLists(t *testing.T) {
	in := map[string]any{"type": []any{"string", "null"}, "examples": []any{"x"}, "$id": "https://x", "nullable": true}
	got := converter{}.convert(in)
	want := map[string]any{"type": []any{"string", "null"}, "examples": []any{"x"}, "nullable": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

// TestEveryToolSchemaCompiles registers nothing by hand: every generated
// parameters schema must be accepted by the same compiler the tool
// registry uses, and must accept a plausible call and refuse a bad one.
func TestEveryToolSchemaCompiles(t *testing.T) {
	for _, file := range []string{"petstore.yaml", "todo.json"} {
		f, _ := mustImport(t, load(t, file), Options{})
		for _, spec := range f.Tools {
			raw, err := json.Marshal(spec.Parameters)
			if err != nil {
				t.Fatalf("%s: %v", spec.Name, err)
			}
			if _, err := tool.CompileSchema(spec.Name, raw); err != nil {
				t.Errorf("%s: %v\n%s", spec.Name, err, raw)
			}
		}
	}
}

func TestGeneratedSchemaValidatesArguments(t *testing.T) {
	f, _ := mustImport(t, load(t, "petstore.yaml"), Options{})
	spec := toolNamed(t, f, "place_order")
	raw, _ := json.Marshal(spec.Parameters)
	s, err := tool.CompileSchema(spec.Name, raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, terr := s.Prepare(`{"lines":[{"petId":7,"quantity":2}],"status":"placed"}`); terr != nil {
		t.Fatalf("valid order refused: %v", terr)
	}
	for _, bad := range []string{
		`{"status":"placed"}`,                        // lines is required
		`{"lines":[]}`,                               // minItems 1
		`{"lines":[{"petId":7,"quantity":0}]}`,       // minimum 1
		`{"lines":[{"petId":7}],"status":"shipped"}`, // enum
	} {
		if _, terr := s.Prepare(bad); terr == nil {
			t.Errorf("invalid arguments %s accepted", bad)
		}
	}
}
