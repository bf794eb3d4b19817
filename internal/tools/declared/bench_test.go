package declared

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// benchLoader loads one tools file into a fresh registry.
func benchLoader(b *testing.B, content string, env map[string]string) (*Loader, *tool.Registry) {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(content), 0o600); err != nil {
		b.Fatal(err)
	}
	reg := tool.NewRegistry()
	l := NewLoader(LoaderOptions{Dir: dir, Registry: reg, Env: func(n string) (string, bool) { v, ok := env[n]; return v, ok }})
	b.Cleanup(func() { l.Close() })
	if err := l.Load(); err != nil || len(l.Problems()) > 0 {
		b.Fatalf("load: %v %v", err, l.Problems())
	}
	return l, reg
}

func benchCall(b *testing.B, reg *tool.Registry, name, args string) {
	d := &tool.Dispatcher{Registry: reg}
	calls := []llm.ToolCall{{ID: "c", Name: name, Arguments: args}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if o := d.Run(context.Background(), calls, nil)[0]; o.Result.Status != tool.StatusOK {
			b.Fatalf("%s: %s", name, o.Content)
		}
	}
}

// BenchmarkHTTPTool is one declared GET through the dispatcher: template
// rendering, ${ENV} resolution, the request to a local server, JSON
// decoding and the selector.
func BenchmarkHTTPTool(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items":[{"id":"A1","status":"paid"},{"id":"A2","status":"paid"}],"total":2}`))
	}))
	defer srv.Close()
	_, reg := benchLoader(b, `tools:
  - name: search_orders
    description: Orders.
    parameters: {type: object, properties: {status: {type: string}, user_id: {type: string}}}
    http:
      url: "${API}/orders"
      headers: {Authorization: "Bearer ${TOKEN}"}
      query: {status: "{{.status}}", user_id: "{{.user_id}}"}
      select: ".items[].id"
`, map[string]string{"API": srv.URL, "TOKEN": "secret-token-1234"})
	benchCall(b, reg, "search_orders", `{"status":"paid"}`)
}

// BenchmarkCommandTool is one declared command (true) through the
// dispatcher: mostly the cost of starting a process.
func BenchmarkCommandTool(b *testing.B) {
	_, reg := benchLoader(b, `tools:
  - name: nothing
    description: Runs true.
    parameters: {type: object, properties: {x: {type: string}}}
    command: {argv: ["true", "{{.x}}"]}
`, nil)
	benchCall(b, reg, "nothing", `{"x":"a b"}`)
}

// BenchmarkReload50 re-reads a changed file of 50 tools: parse, validate
// every template and schema, and swap them into the registry.
func BenchmarkReload50(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("tools:\n")
	for i := range 50 {
		fmt.Fprintf(&sb, `  - name: tool_%d
    description: Tool %d.
    parameters: {type: object, properties: {id: {type: string}, n: {type: integer}}, required: [id]}
    http: {url: "${API}/items/{{.id}}", query: {n: "{{.n}}"}, select: ".data"}
`, i, i)
	}
	l, _ := benchLoader(b, sb.String(), nil)
	path := filepath.Join(l.opts.Dir, "t.yaml")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// A changed comment makes the file differ, so it is parsed again.
		os.WriteFile(path, []byte(fmt.Sprintf("# %d\n%s", i, sb.String())), 0o600)
		if err := l.Load(); err != nil {
			b.Fatal(err)
		}
	}
}
