package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// fakeTool is a Tool whose behaviour each test supplies.
type fakeTool struct {
	spec Spec
	call func(ctx context.Context, args json.RawMessage) (any, error)
}

func (f *fakeTool) Spec() Spec { return f.spec }

func (f *fakeTool) Call(ctx context.Context, args json.RawMessage) (any, error) {
	if f.call == nil {
		return map[string]any{"echo": args}, nil
	}
	return f.call(ctx, args)
}

// offTool is a fakeTool whose requirements are missing.
type offTool struct {
	fakeTool
	reason error
}

func (o *offTool) Available() error { return o.reason }

var (
	_ Tool         = (*fakeTool)(nil)
	_ Availability = (*offTool)(nil)
)

// simple returns a fake tool with the given name, toolset and schema.
func simple(name, toolset, schema string) *fakeTool {
	return &fakeTool{spec: Spec{Name: name, Toolset: toolset, Description: name + " does a thing.\nMore detail.", Parameters: json.RawMessage(schema)}}
}

// newRegistry registers tools or fails the test.
func newRegistry(t testing.TB, tools ...Tool) *Registry {
	t.Helper()
	r := NewRegistry()
	for _, tl := range tools {
		if err := r.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// mustSchema compiles a schema or fails the test.
func mustSchema(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := CompileSchema("t", json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
