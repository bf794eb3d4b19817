package openapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/declared"
)

// seen is one request the fake Petstore received.
type seen struct {
	method, path, query, contentType, auth, requestID, ifMatch string
	body                                                       string
}

// TestGeneratedFileLoadsAndCalls writes the imported Petstore tools to a
// tools directory, loads it with the declared package as hermes does,
// and calls tools against a real HTTP server standing in for the API.
func TestGeneratedFileLoadsAndCalls(t *testing.T) {
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Get("Authorization"),
			r.Header.Get("X-Request-ID"), r.Header.Get("If-Match"), string(body)})
		mu.Unlock()
		switch r.Method {
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		case http.MethodPost:
			if strings.HasSuffix(r.URL.Path, "/form") {
				w.WriteHeader(http.StatusOK) // the document promises 200 here
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id": 1, "name": "Rex"}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok": true}`)
		}
	}))
	defer srv.Close()

	d := load(t, "petstore.yaml")
	f, _ := mustImport(t, d, Options{BaseURLEnv: "PETSTORE_URL"})
	out, err := MarshalHeader(f, HeaderFor(d, "petstore.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "petstore.yaml"), out, 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PETSTORE_URL": srv.URL + "/v2", "PETSTORE_TOKEN": "s3cret"}
	reg := tool.NewRegistry()
	l := declared.NewLoader(declared.LoaderOptions{Dir: dir, Registry: reg,
		Env: func(name string) (string, bool) { v, ok := env[name]; return v, ok }})
	if err := l.Load(); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, p := range l.Problems() {
		t.Errorf("problem: %s:%d %s: %v", p.File, p.Line, p.Tool, p.Err)
	}
	if n := len(l.Tools()); n != len(f.Tools) {
		t.Fatalf("%d tools loaded, want %d", n, len(f.Tools))
	}

	calls := []struct {
		tool, args string
		want       seen
	}{
		{"list_pets", `{"limit": 5, "status": ["available", "pending"], "x_request_id": "r-1"}`,
			seen{method: "GET", path: "/v2/pets", query: "limit=5&status=available%2Cpending", auth: "Bearer s3cret", requestID: "r-1"}},
		{"show_pet_by_id", `{"petId": 42}`,
			seen{method: "GET", path: "/v2/pets/42", auth: "Bearer s3cret"}},
		{"create_pet", `{"name": "Rex", "weight": 3.5, "category": {"name": "dogs"}}`,
			seen{method: "POST", path: "/v2/pets", contentType: "application/json", auth: "Bearer s3cret",
				body: `{"category":{"name":"dogs"},"name":"Rex","weight":3.5}`}},
		{"update_pet_with_form", `{"petId": 7, "name": "Rex & Co", "status": "sold"}`,
			seen{method: "POST", path: "/v2/pets/7/form", contentType: "application/x-www-form-urlencoded", auth: "Bearer s3cret",
				body: "name=Rex+%26+Co&status=sold"}},
		{"update_pet_with_form", `{"petId": 7, "name": "Rex"}`,
			seen{method: "POST", path: "/v2/pets/7/form", contentType: "application/x-www-form-urlencoded", auth: "Bearer s3cret",
				body: "name=Rex"}},
		{"delete_pet", `{"petId": 9, "if_match": "\"v3\""}`,
			seen{method: "DELETE", path: "/v2/pets/9", auth: "Bearer s3cret", ifMatch: `"v3"`}},
	}
	for _, c := range calls {
		t.Run(c.tool, func(t *testing.T) {
			tl, ok := reg.Get(c.tool)
			if !ok {
				t.Fatalf("%s not registered", c.tool)
			}
			mu.Lock()
			got = nil
			mu.Unlock()
			if _, err := tl.Call(context.Background(), json.RawMessage(c.args)); err != nil {
				t.Fatalf("call: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 1 {
				t.Fatalf("%d requests, want 1", len(got))
			}
			if got[0] != c.want {
				t.Fatalf("request\n got  %+v\n want %+v", got[0], c.want)
			}
		})
	}
}

// TestGeneratedFilesLoadWithoutProblems checks every generated file the
// way hermes reads it: no tool may be refused.
func TestGeneratedFilesLoadWithoutProblems(t *testing.T) {
	for _, file := range []string{"petstore.yaml", "todo.json"} {
		d := load(t, file)
		f, _ := mustImport(t, d, Options{Prefix: "x"})
		out, err := Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "tools.yaml"), out, 0o600); err != nil {
			t.Fatal(err)
		}
		reg := tool.NewRegistry()
		l := declared.NewLoader(declared.LoaderOptions{Dir: dir, Registry: reg, Env: func(string) (string, bool) { return "", false }})
		if err := l.Load(); err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Problems() {
			t.Errorf("%s: problem at line %d, tool %s: %v", file, p.Line, p.Tool, p.Err)
		}
		if n := len(l.Tools()); n != len(f.Tools) {
			t.Errorf("%s: %d tools loaded, want %d", file, n, len(f.Tools))
		}
		l.Close()
	}
}
