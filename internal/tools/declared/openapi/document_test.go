package openapi

import (
	"strings"
	"testing"
)

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"swagger 2.0", "swagger: '2.0'\ninfo: {title: Old, version: '1'}\npaths: {}\n", "convert it first"},
		{"no openapi field", "info: {title: X, version: '1'}\npaths: {}\n", `no "openapi" field`},
		{"openapi 2.5", "openapi: 2.5.0\npaths: {}\n", `"2.5.0" is not supported`},
		{"openapi 4", "openapi: 4.0.0\npaths: {}\n", "not supported"},
		{"a list", "- openapi: 3.0.0\n", "want a mapping"},
		{"empty", "", "empty"},
		{"broken yaml", "openapi: [3.0\n", "neither valid JSON nor valid YAML"},
		{"paths not a mapping", "openapi: 3.0.0\npaths: [a]\n", "paths is a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestParseReadsVersionsAsWritten(t *testing.T) {
	// Unquoted 3.0 and 1.0 decode as numbers; the text must survive.
	d := parse(t, "openapi: 3.0\ninfo: {title: Shop, version: 1.0}\npaths: {}\n")
	if d.OpenAPI != "3.0" || d.Version != "1.0" || d.Title != "Shop" {
		t.Fatalf("got openapi %q version %q title %q", d.OpenAPI, d.Version, d.Title)
	}
	if d.is31() {
		t.Fatal("3.0 document taken for 3.1")
	}
}

func TestParseJSON(t *testing.T) {
	d := load(t, "todo.json")
	if d.OpenAPI != "3.1.0" || d.Title != "Todo Service" || !d.is31() {
		t.Fatalf("got %q %q", d.OpenAPI, d.Title)
	}
	ops, _ := d.operations()
	if len(ops) != 3 {
		t.Fatalf("got %d operations, want 3", len(ops))
	}
}

func TestOperationsKeepDocumentOrder(t *testing.T) {
	d := parse(t, minimal+`paths:
  /zebra:
    post: {operationId: b, responses: {'200': {description: ok}}}
    get: {operationId: a, responses: {'200': {description: ok}}}
  /apple:
    get: {operationId: c, responses: {'200': {description: ok}}}
`)
	ops, _ := d.operations()
	var got []string
	for _, o := range ops {
		got = append(got, o.id)
	}
	if strings.Join(got, ",") != "b,a,c" {
		t.Fatalf("order = %v, want b,a,c (as written)", got)
	}
}

func TestUnquotedResponseCodes(t *testing.T) {
	// YAML reads 200: as an integer key; the document must still read as
	// JSON would.
	d := parse(t, minimal+`paths:
  /x:
    post:
      operationId: make
      responses:
        201: {description: created}
        202: {description: accepted}
        400: {description: bad}
`)
	f, _ := mustImport(t, d, Options{})
	if got := f.Tools[0].HTTP.Expect; len(got) != 2 || got[0] != 201 || got[1] != 202 {
		t.Fatalf("expect = %v, want [201 202]", got)
	}
}
