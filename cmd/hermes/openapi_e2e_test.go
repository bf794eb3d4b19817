package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestImportOpenAPIThenCall imports two operations of a real-world-sized
// OpenAPI document, checks the file loads, and calls one against a local
// server standing in for the API.
func TestImportOpenAPIThenCall(t *testing.T) {
	h := newHome(t)
	var mu sync.Mutex
	var seen []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id": 7, "name": "Rex", "status": "available"}`))
	}))
	defer api.Close()
	h.write(".env", "PET_API="+api.URL+"\nPET_TOKEN=pet-tok-81c3d2e0\n")
	spec, err := filepath.Abs(filepath.Join("..", "..", "internal", "tools", "declared", "openapi", "testdata", "petstore.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r := h.hermes("tools", "import-openapi", spec, "--prefix", "pet", "--include", "listPets,GET /pets/{petId}", "--base-url-env", "PET_API")
	path := filepath.Join(h.dir, "tools", "pet.yaml")
	if r.code != 0 || !strings.Contains(r.stdout, "wrote 2 tool(s) to "+path) || !strings.Contains(r.stderr, "PET_TOKEN") {
		t.Fatalf("import: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "${PET_API}") {
		t.Errorf("the file does not read the base URL from PET_API:\n%s", data)
	}
	// Importing again does not overwrite without --force.
	if r := h.hermes("tools", "import-openapi", spec, "--prefix", "pet"); r.code == 0 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("second import: exit %d\n%s", r.code, r.stderr)
	}
	if r := h.hermes("tools", "import-openapi", spec, "--include", "noSuchOperation", "-o", "-"); r.code == 0 || !strings.Contains(r.stderr, "listPets") {
		t.Errorf("an include matching nothing: exit %d\n%s", r.code, r.stderr)
	}

	r = h.hermes("tools", "list")
	if !strings.Contains(r.stdout, "pet_list_pets") || !strings.Contains(r.stdout, "pet_show_pet_by_id") || strings.Contains(r.stdout, "problem") {
		t.Errorf("tools list after import:\n%s", r.stdout)
	}
	r = h.hermes("tools", "test", "pet_show_pet_by_id", "--args", `{"petId": 7}`)
	if r.code != 0 || !strings.Contains(r.stdout, "Rex") || !strings.Contains(r.stdout, "${PET_TOKEN}") || strings.Contains(r.stdout, "pet-tok-81c3d2e0") {
		t.Errorf("calling an imported tool: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "GET /pets/7 Bearer pet-tok-81c3d2e0" {
		t.Errorf("the API saw %q", seen)
	}
}
