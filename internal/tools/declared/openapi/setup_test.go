package openapi

import (
	"os"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tools/declared"
)

// load parses a document from testdata.
func load(t *testing.T, name string) *Document {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return d
}

// parse parses an inline document.
func parse(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

// mustImport imports with opts and fails the test on error.
func mustImport(t *testing.T, d *Document, opts Options) (*declared.File, []string) {
	t.Helper()
	f, warnings, err := Import(d, opts)
	if err != nil {
		t.Fatalf("Import(%+v): %v\nwarnings:\n%s", opts, err, strings.Join(warnings, "\n"))
	}
	return f, warnings
}

// toolNamed finds a generated tool by name.
func toolNamed(t *testing.T, f *declared.File, name string) declared.Spec {
	t.Helper()
	for _, s := range f.Tools {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no tool %q among %v", name, toolNames(f))
	return declared.Spec{}
}

func toolNames(f *declared.File) []string {
	var out []string
	for _, s := range f.Tools {
		out = append(out, s.Name)
	}
	return out
}

// props returns the properties of a tool's parameters schema.
func props(t *testing.T, s declared.Spec) map[string]any {
	t.Helper()
	p, ok := s.Parameters["properties"].(map[string]any)
	if !ok {
		t.Fatalf("%s: parameters has no properties: %v", s.Name, s.Parameters)
	}
	return p
}

// required returns a tool's required argument names.
func required(s declared.Spec) []string {
	var out []string
	list, _ := s.Parameters["required"].([]any)
	for _, r := range list {
		out = append(out, r.(string))
	}
	return out
}

// hasWarning reports whether some warning contains all the parts.
func hasWarning(warnings []string, parts ...string) bool {
	for _, w := range warnings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return true
		}
	}
	return false
}

// minimal is a small 3.0 document; tests append paths and components.
const minimal = `openapi: 3.0.3
info: {title: Mini, version: "1"}
servers: [{url: "https://mini.example.com"}]
`
