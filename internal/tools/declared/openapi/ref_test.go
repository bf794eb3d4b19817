package openapi

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const refDoc = minimal + `paths: {}
components:
  schemas:
    a/b: {type: string, description: slash}
    a~b: {type: string, description: tilde}
    "{id}": {type: string, description: braces}
    Chain1: {$ref: '#/components/schemas/Chain2'}
    Chain2: {$ref: '#/components/schemas/Leaf'}
    Leaf: {type: integer}
    Category:
      type: object
      properties:
        name: {type: string}
        parent: {$ref: '#/components/schemas/Category'}
    A:
      type: object
      properties:
        b: {$ref: '#/components/schemas/B'}
    B:
      type: object
      properties:
        a: {$ref: '#/components/schemas/A'}
    Twice:
      type: object
      properties:
        x: {$ref: '#/components/schemas/Leaf'}
        y: {$ref: '#/components/schemas/Leaf'}
    Remote: {$ref: 'common.yaml#/components/schemas/Money'}
    Missing: {$ref: '#/components/schemas/Nope'}
    Described: {$ref: '#/components/schemas/Leaf', description: overridden}
`

func TestResolve(t *testing.T) {
	d := parse(t, refDoc)
	tests := []struct {
		ref  string
		want any
	}{
		{"#/components/schemas/a~1b", map[string]any{"type": "string", "description": "slash"}},
		{"#/components/schemas/a~0b", map[string]any{"type": "string", "description": "tilde"}},
		{"#/components/schemas/%7Bid%7D", map[string]any{"type": "string", "description": "braces"}},
		{"#/components/schemas/Chain1", map[string]any{"type": "integer"}},
		{"#/components/schemas/Twice", map[string]any{"type": "object", "properties": map[string]any{
			"x": map[string]any{"type": "integer"}, "y": map[string]any{"type": "integer"}}}},
		{"#/components/schemas/Category", map[string]any{"type": "object", "properties": map[string]any{
			"name":   map[string]any{"type": "string"},
			"parent": map[string]any{"type": "object", "description": "(recursive: Category)"}}}},
		{"#/components/schemas/A", map[string]any{"type": "object", "properties": map[string]any{
			"b": map[string]any{"type": "object", "properties": map[string]any{
				"a": map[string]any{"type": "object", "description": "(recursive: A)"}}}}}},
		{"#/components/schemas/Described", map[string]any{"type": "integer", "description": "overridden"}},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := newResolver(d.root).resolve(map[string]any{"$ref": tt.ref})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	d := parse(t, refDoc)
	_, err := newResolver(d.root).resolve(map[string]any{"$ref": "#/components/schemas/Remote"})
	var ext *ExternalRefError
	if !errors.As(err, &ext) || ext.Ref != "common.yaml#/components/schemas/Money" {
		t.Fatalf("external ref: got %v, want an ExternalRefError naming common.yaml#/components/schemas/Money", err)
	}
	_, err = newResolver(d.root).resolve(map[string]any{"$ref": "#/components/schemas/Missing"})
	if err == nil || !strings.Contains(err.Error(), `"Nope" not found`) {
		t.Fatalf("missing target: got %v", err)
	}
}

func TestResolveLeavesDocumentAlone(t *testing.T) {
	d := parse(t, refDoc)
	if _, err := newResolver(d.root).resolve(d.root["components"]); err == nil {
		t.Fatal("resolving all components should meet the external ref")
	}
	cat := d.root["components"].(map[string]any)["schemas"].(map[string]any)["Category"].(map[string]any)
	parent := cat["properties"].(map[string]any)["parent"].(map[string]any)
	if parent["$ref"] != "#/components/schemas/Category" {
		t.Fatalf("document was modified: parent = %v", parent)
	}
}

func TestResolveBoundsExpansion(t *testing.T) {
	// Each level refers to the next twice: 2^30 copies if unbounded.
	var b strings.Builder
	b.WriteString(minimal + "paths: {}\ncomponents:\n  schemas:\n")
	for i := 0; i < 30; i++ {
		b.WriteString("    L" + strconv.Itoa(i) + ": {type: object, properties: {x: {$ref: '#/components/schemas/L" + strconv.Itoa(i+1) + "'}, y: {$ref: '#/components/schemas/L" + strconv.Itoa(i+1) + "'}}}\n")
	}
	b.WriteString("    L30: {type: string}\n")
	d := parse(t, b.String())
	_, err := newResolver(d.root).resolve(map[string]any{"$ref": "#/components/schemas/L0"})
	if !errors.Is(err, errTooLarge) {
		t.Fatalf("got %v, want errTooLarge", err)
	}
}
