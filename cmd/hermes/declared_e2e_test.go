package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"

	_ "modernc.org/sqlite"
)

// ordersAPI is a small orders service: GET /orders answers the items and
// records what it was asked.
type ordersAPI struct {
	*httptest.Server
	mu    sync.Mutex
	seen  []*http.Request
	token string
}

func newOrdersAPI(t *testing.T, token string) *ordersAPI {
	api := &ordersAPI{token: token}
	api.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.mu.Lock()
		api.seen = append(api.seen, r.Clone(r.Context()))
		api.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+api.token {
			http.Error(w, `{"error":"bad token"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"items":[{"id":"A1","status":"paid","amount":12.5}],"total":1}`))
	}))
	t.Cleanup(api.Close)
	return api
}

func (a *ordersAPI) requests() []*http.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*http.Request(nil), a.seen...)
}

// ordersTools is seed 003's own example, as a user writes it; the
// declared-tools loader's tests read the same file.
var ordersTools = func() string {
	b, err := os.ReadFile("../../internal/tools/declared/testdata/seed-orders.yaml")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

const ordersToken = "ord-tok-5f2a9c81e7d4"

// ordersHome is a hermes home whose tools/orders.yaml declares the seed's
// tools, with the API's address and token in .env.
func ordersHome(t *testing.T) (*home, *ordersAPI) {
	h := newHome(t)
	api := newOrdersAPI(t, ordersToken)
	if err := os.MkdirAll(filepath.Join(h.dir, "tools"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("tools/orders.yaml", ordersTools)
	h.write(".env", "ORDERS_API="+api.URL+"\nORDERS_TOKEN="+ordersToken+"\n")
	return h, api
}

func call(name, args string) llm.ToolCall { return llm.ToolCall{Name: name, Arguments: args} }

func TestDeclaredToolsThroughChat(t *testing.T) {
	h, api := ordersHome(t)
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "data.bin"), make([]byte, 64<<10), 0o600)
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			call("search_orders", `{"status":"paid","start_date":"2024年1月1日"}`),
			call("disk_report", `{"path":"`+work+`"}`),
		}},
		llmtest.Reply{Text: "One paid order, A1."},
	)
	out, r := h.chatIn(srv, work, "paid orders since new year, and how big is this folder?")
	if r.code != 0 || out.Final != "One paid order, A1." {
		t.Fatalf("exit %d, result %+v\nstderr: %s", r.code, out, r.stderr)
	}
	reqs := api.requests()
	if len(reqs) != 1 {
		t.Fatalf("the API got %d requests, want 1", len(reqs))
	}
	q := reqs[0].URL.Query()
	if q.Get("status") != "paid" || q.Get("from") != "2024-01-01" || q.Has("user_id") {
		t.Errorf("the API was asked %q; want status=paid, from=2024-01-01 and no user_id", reqs[0].URL.RawQuery)
	}
	// Both results reach the model, in call order.
	msgs := srv.Requests()[1].Messages
	var results []string
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			results = append(results, m.Text())
		}
	}
	if len(results) != 2 {
		t.Fatalf("the model got %d tool results, want 2", len(results))
	}
	var orders struct {
		Status string `json:"status"`
		Data   struct {
			Status int               `json:"status"`
			Data   []json.RawMessage `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(results[0]), &orders); err != nil || orders.Status != "ok" || len(orders.Data.Data) != 1 ||
		!strings.Contains(string(orders.Data.Data[0]), `"A1"`) {
		t.Errorf("search_orders result: %s (%v)", results[0], err)
	}
	if !strings.Contains(results[1], `"exit_code":0`) || !strings.Contains(results[1], work) {
		t.Errorf("disk_report result: %s", results[1])
	}
	// The token went to the API, never to the model.
	for i, req := range srv.Requests() {
		if strings.Contains(string(req.Body), ordersToken) {
			t.Errorf("request %d to the model carries the orders token", i)
		}
	}
	if strings.Contains(r.stderr, ordersToken) {
		t.Errorf("the token reached the log:\n%s", r.stderr)
	}
}

func TestToolsTestShowsTheRequest(t *testing.T) {
	h, api := ordersHome(t)
	r := h.hermes("tools", "test", "search_orders", "--args", `{"status":"shipped","user_id":"u 7"}`)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"GET " + api.URL + "/orders?", "status=shipped", "user_id=u+7",
		"Authorization: Bearer ${ORDERS_TOKEN}", "200", `"status": "ok"`, `"A1"`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("tools test output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, ordersToken) {
		t.Errorf("tools test printed the token:\n%s", r.stdout)
	}
	if got := len(api.requests()); got != 1 {
		t.Errorf("the API got %d requests, want 1", got)
	}

	// A failing call exits 1 after printing the envelope; bad arguments
	// are refused before any request.
	r = h.hermes("tools", "test", "search_orders", "--args", `{"status":"lost"}`)
	if r.code != 1 || !strings.Contains(r.stdout, "invalid_arguments") || !strings.Contains(r.stdout, "must be one of") {
		t.Errorf("bad enum: exit %d\n%s", r.code, r.stdout)
	}
	if got := len(api.requests()); got != 1 {
		t.Errorf("an invalid call reached the API (%d requests)", got)
	}
	r = h.hermes("tools", "test", "search_ordrs")
	if r.code != 1 || !strings.Contains(r.stderr, `no tool named "search_ordrs"`) {
		t.Errorf("unknown tool: exit %d\n%s", r.code, r.stderr)
	}
	r = h.hermes("tools", "test", "disk_report", "--args", `{path: x}`)
	if r.code != 1 || !strings.Contains(r.stderr, "--args") {
		t.Errorf("args that are not JSON: exit %d\n%s", r.code, r.stderr)
	}
}

func TestToolsListNamesBrokenFiles(t *testing.T) {
	h, _ := ordersHome(t)
	h.write("tools/broken.yaml", `tools:
  - name: refund
    description: Refund an order.
    parameters: {type: object, properties: {order_id: {type: string}}}
    http:
      method: POST
      url: "${ORDERS_API}/refund/{{.order}}"
`)
	h.write("tools/notyaml.yaml", "tools: [unclosed\n")
	r := h.hermes("tools", "list")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"search_orders", "disk_report", "declared",
		`tools/broken.yaml:7: tool "refund": http.url: template refers to .order, which is not a parameter (parameters: order_id)`,
		"tools/notyaml.yaml",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("tools list lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "refund  ") {
		t.Errorf("the broken tool is listed as a tool:\n%s", r.stdout)
	}
}

// TestChatReloadsEditedToolsFiles edits a tools file while a chat runs: the
// next turn offers the new tool, and a file broken mid-chat keeps its last
// good tools.
func TestChatReloadsEditedToolsFiles(t *testing.T) {
	h, _ := ordersHome(t)
	srv := llmtest.New(t)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	cmd := chatCommand(h, srv)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	offered := func(i int) []string {
		var names []string
		for _, s := range srv.Requests()[i].Tools {
			names = append(names, s.Name)
		}
		return names
	}
	// ask sends messages until the model's tool list satisfies cond.
	ask := func(what string, cond func([]string) bool) {
		t.Helper()
		for range 40 {
			n := len(srv.Requests())
			io.WriteString(stdin, "hello\n")
			waitRequests(t, srv, n+1)
			if cond(offered(n)) {
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Fatalf("%s: the model was never offered the expected tools; last: %v\n%s", what, offered(len(srv.Requests())-1), out.String())
	}
	ask("at start", func(n []string) bool {
		return slices.Contains(n, "search_orders") && !slices.Contains(n, "refund_order")
	})
	h.write("tools/refunds.yaml", `tools:
  - name: refund_order
    description: Refund one order. Not for partial refunds.
    parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    approval: always
    command: {argv: ["echo", "refunded {{.order_id}}"]}
`)
	ask("after adding refunds.yaml", func(n []string) bool { return slices.Contains(n, "refund_order") })
	h.write("tools/orders.yaml", "tools: [broken\n")
	h.write("tools/refunds.yaml", "tools: []\n")
	ask("after breaking orders.yaml", func(n []string) bool {
		return !slices.Contains(n, "refund_order") && slices.Contains(n, "search_orders")
	})
}

// syncBuffer is a bytes.Buffer safe for a process's two output streams
// and the test reading it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestApprovalAlwaysTool: a declared tool marked approval: always does not
// run when nobody can approve it, and runs once its rule is in
// command_allowlist. Its command line is a safe one, so the mark alone
// decides.
func TestApprovalAlwaysTool(t *testing.T) {
	h, _ := ordersHome(t)
	marker := filepath.Join(t.TempDir(), "refunded")
	h.write("tools/refunds.yaml", `tools:
  - name: refund_order
    description: Refund one order.
    parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    approval: always
    command: {argv: ["tee", "`+marker+`"], stdin: "{{.order_id}}"}
`)
	script := func(srv *llmtest.Server) {
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{call("refund_order", `{"order_id":"A1"}`)}}, llmtest.Reply{Text: "done"})
	}
	srv := llmtest.New(t)
	script(srv)
	_, r := h.chatIn(srv, t.TempDir(), "refund A1")
	if res := lastToolResult(t, srv, 1); !strings.Contains(res, `"error_code":"denied"`) {
		t.Errorf("refund without approval: %s\n%s", res, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the refund ran without approval")
	}
	h.write("config.yaml", "command_allowlist: [\"tool:refund_order\"]\n")
	srv2 := llmtest.New(t)
	script(srv2)
	h.chatIn(srv2, t.TempDir(), "refund A1")
	if res := lastToolResult(t, srv2, 1); !strings.Contains(res, `"status":"ok"`) {
		t.Errorf("refund allowed by command_allowlist: %s", res)
	}
	if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != "A1" {
		t.Errorf("the refund did not run: %q %v", b, err)
	}
}

// TestSQLToolsOverSQLite declares a fixed query and a read-only free-form
// tool over a real SQLite file whose connection is named in config.yaml.
func TestSQLToolsOverSQLite(t *testing.T) {
	h := newHome(t)
	dbPath := filepath.Join(t.TempDir(), "shop.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE orders (id TEXT PRIMARY KEY, user_id TEXT, status TEXT, amount REAL)",
		"INSERT INTO orders VALUES ('A1','u1','paid',12.5), ('A2','u1','shipped',3), ('A3','u2','paid',7)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	h.write("config.yaml", "connections:\n  shop: {driver: sqlite, dsn: \""+dbPath+"\"}\n")
	os.MkdirAll(filepath.Join(h.dir, "tools"), 0o700)
	h.write("tools/db.yaml", `tools:
  - name: orders_of_user
    description: Orders of one user.
    parameters: {type: object, properties: {user_id: {type: string}}, required: [user_id]}
    sql:
      connection: shop
      query: "SELECT id, status, amount FROM orders WHERE user_id = ? ORDER BY id"
      args: ["{{.user_id}}"]
  - name: db_query
    description: Run one read-only SELECT on the shop database. Not for changes.
    parameters: {type: object, properties: {sql: {type: string}}, required: [sql]}
    sql: {connection: shop, read_only: true, max_rows: 2}
`)
	r := h.hermes("tools", "test", "orders_of_user", "--args", `{"user_id":"u1"}`)
	if r.code != 0 || !strings.Contains(r.stdout, `"A1"`) || !strings.Contains(r.stdout, `"A2"`) || strings.Contains(r.stdout, `"A3"`) {
		t.Errorf("orders_of_user: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.hermes("tools", "test", "db_query", "--args", `{"sql":"SELECT id FROM orders ORDER BY id"}`)
	if r.code != 0 || !strings.Contains(r.stdout, `"truncated": true`) {
		t.Errorf("db_query with a row cap: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.hermes("tools", "test", "db_query", "--args", `{"sql":"DELETE FROM orders"}`)
	if r.code != 1 || !strings.Contains(r.stdout, "invalid_arguments") {
		t.Errorf("db_query DELETE: exit %d\n%s", r.code, r.stdout)
	}
	db, _ = sql.Open("sqlite", dbPath)
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM orders").Scan(&n); err != nil || n != 3 {
		t.Errorf("orders left: %d, %v; want 3", n, err)
	}
}
