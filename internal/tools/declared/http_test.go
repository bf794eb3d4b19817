package declared

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// apiServer records the requests it gets and answers with handler.
type apiServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method, rawPath, path string
	query                 map[string][]string
	auth, contentType     string
	body                  string
}

func newAPI(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) *apiServer {
	s := &apiServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recorded{r.Method, r.URL.EscapedPath(), r.URL.Path, r.URL.Query(), r.Header.Get("Authorization"),
			r.Header.Get("Content-Type"), string(body)})
		s.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *apiServer) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

func jsonReply(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

const ordersYAML = `tools:
  - name: search_orders
    description: Find orders.
    parameters:
      type: object
      properties:
        user_id: {type: string}
        status: {type: string, enum: [pending, paid, shipped, cancelled]}
        start_date: {type: string, format: date}
        shop: {type: string}
      required: [shop]
    http:
      method: GET
      url: "${ORDERS_API}/shops/{{.shop}}/orders"
      headers: {Authorization: "Bearer ${ORDERS_TOKEN}"}
      query: {user_id: "{{.user_id}}", status: "{{.status}}", from: "{{.start_date}}"}
      select: ".items"
`

func TestHTTPGetQueryPathAndSecretHeader(t *testing.T) {
	api := newAPI(t, jsonReply(200, `{"items":[{"id":1},{"id":2}],"total":2}`))
	h := newHome(t)
	h.env["ORDERS_API"] = api.URL
	h.env["ORDERS_TOKEN"] = "s3cr3t-token-value"
	h.load("orders.yaml", ordersYAML)

	var tr traces
	got := h.call(tr.ctx(), "search_orders", `{"shop":"a/b c","status":"paid"}`)
	want := map[string]any{"status": 200.0, "data": []any{map[string]any{"id": 1.0}, map[string]any{"id": 2.0}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("data = %v, want %v", got, want)
	}
	reqs := api.requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests", len(reqs))
	}
	r := reqs[0]
	if r.rawPath != "/shops/a%2Fb%20c/orders" {
		t.Errorf("path = %q, want the argument path-escaped", r.rawPath)
	}
	if !reflect.DeepEqual(r.query, map[string][]string{"status": {"paid"}}) {
		t.Errorf("query = %v, want only status (empty optional arguments left out)", r.query)
	}
	if r.auth != "Bearer s3cr3t-token-value" {
		t.Errorf("Authorization = %q, want the token from the environment", r.auth)
	}
	trace := tr.String()
	if strings.Contains(trace, "s3cr3t") || !strings.Contains(trace, "Bearer ${ORDERS_TOKEN}") {
		t.Errorf("trace must mask the token:\n%s", trace)
	}
	if !strings.Contains(trace, api.URL+"/shops/a%2Fb%20c/orders?status=paid") || !strings.Contains(trace, "200 OK") {
		t.Errorf("trace lacks the URL or status:\n%s", trace)
	}
}

func TestHTTPMissingEnvIsNamed(t *testing.T) {
	h := newHome(t)
	h.env["ORDERS_API"] = "http://127.0.0.1:1"
	h.load("orders.yaml", ordersYAML)
	o, _ := h.run(context.Background(), "search_orders", `{"shop":"x"}`)
	if o.Result.ErrorCode != tool.CodeInternal || !strings.Contains(o.Result.Message, "ORDERS_TOKEN is not set; add it to $HERMES_HOME/.env") {
		t.Errorf("got %s %q", o.Result.ErrorCode, o.Result.Message)
	}
}

func TestHTTPPostJSONBody(t *testing.T) {
	api := newAPI(t, jsonReply(201, `{"id":"o-1","echo":"token is s3cr3t-token-value"}`))
	h := newHome(t)
	h.env["API"] = api.URL
	h.env["API_TOKEN"] = "s3cr3t-token-value"
	h.load("create.yaml", `tools:
  - name: create_order
    description: Create an order.
    parameters:
      type: object
      properties:
        sku: {type: string}
        qty: {type: integer}
        gift: {type: boolean}
        note: {type: string}
        tags: {type: array, items: {type: string}}
      required: [sku, qty]
    http:
      method: POST
      url: "${API}/orders"
      headers: {X-Token: "${API_TOKEN}"}
      body:
        sku: "{{.sku}}"
        quantity: "{{.qty}}"
        gift: "{{.gift}}"
        label: "order of {{.sku}}"
        meta: {source: hermes, tags: "{{.tags}}", note: "{{.note}}"}
`)
	got := h.call(context.Background(), "create_order", `{"sku":"A-1","qty":3,"tags":["x","y"]}`)
	r := api.requests()[0]
	var body map[string]any
	if err := json.Unmarshal([]byte(r.body), &body); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
	want := map[string]any{"sku": "A-1", "quantity": 3.0, "label": "order of A-1",
		"meta": map[string]any{"source": "hermes", "tags": []any{"x", "y"}}}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("body = %v, want %v (typed values, absent ones left out)", body, want)
	}
	if r.method != "POST" || r.contentType != "application/json" {
		t.Errorf("method %s content type %q", r.method, r.contentType)
	}
	data := got.(map[string]any)["data"].(map[string]any)
	if data["echo"] != "token is ${API_TOKEN}" {
		t.Errorf("a secret echoed by the server must be masked, got %v", data["echo"])
	}
}

func TestHTTPServerErrorRetriedWithBackoff(t *testing.T) {
	api := newAPI(t, jsonReply(500, `{"error":"database exploded"}`))
	h := newHome(t)
	h.env["API"] = api.URL
	h.load("flaky.yaml", `tools:
  - name: flaky
    description: A flaky service.
    parameters: {type: object, properties: {}}
    retry: {attempts: 2, backoff: [3s, 10s]}
    http: {url: "${API}/x"}
`)
	o, fs := h.run(context.Background(), "flaky", `{}`)
	if o.Result.ErrorCode != tool.CodeUpstreamUnavailable || !strings.Contains(o.Result.Message, "500") ||
		!strings.Contains(o.Result.Message, "database exploded") {
		t.Errorf("got %s %q", o.Result.ErrorCode, o.Result.Message)
	}
	if n := len(api.requests()); n != 2 || o.Attempts != 2 {
		t.Errorf("server saw %d requests in %d attempts, want 2", n, o.Attempts)
	}
	if !reflect.DeepEqual(fs.waits, []time.Duration{3 * time.Second}) {
		t.Errorf("waits = %v, want the configured first backoff [3s]", fs.waits)
	}
}

func TestHTTPStatusCodes(t *testing.T) {
	for _, tc := range []struct {
		status    int
		code      tool.Code
		retryable bool
	}{
		{400, tool.CodeInvalidArguments, false},
		{401, tool.CodeDenied, false},
		{404, tool.CodeNotFound, false},
		{429, tool.CodeUpstreamUnavailable, true},
		{503, tool.CodeUpstreamUnavailable, true},
		{502, tool.CodeUpstreamUnavailable, false},
		{409, tool.CodeInternal, false},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			api := newAPI(t, jsonReply(tc.status, strings.Repeat("x", 2000)))
			h := newHome(t)
			h.env["API"] = api.URL
			h.load("s.yaml", "tools:\n  - name: s\n    description: d\n    http: {method: POST, url: \"${API}/\"}\n")
			tl, _ := h.reg.Get("s")
			_, err := tl.Call(context.Background(), json.RawMessage(`{}`))
			te, ok := tool.AsError(err)
			if !ok || te.Code != tc.code || te.Retryable != tc.retryable {
				t.Fatalf("err = %#v, want code %s retryable %v", err, tc.code, tc.retryable)
			}
			if len(te.Message) > 700 || !strings.Contains(te.Message, fmt.Sprint(tc.status)) {
				t.Errorf("message should carry the status and a short body: %d chars", len(te.Message))
			}
		})
	}
}

func TestHTTPTimeout(t *testing.T) {
	release := make(chan struct{})
	api := newAPI(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	h := newHome(t)
	h.env["API"] = api.URL
	h.load("slow.yaml", "tools:\n  - name: slow\n    description: d\n    timeout: 200ms\n    http: {url: \"${API}/\"}\n")
	o, _ := h.run(context.Background(), "slow", `{}`)
	if o.Result.ErrorCode != tool.CodeTimeout {
		t.Errorf("got %s %q, want timeout", o.Result.ErrorCode, o.Result.Message)
	}
}

func TestHTTPConnectionRefusedIsRetryable(t *testing.T) {
	api := newAPI(t, jsonReply(200, `{}`))
	url := api.URL
	api.Close()
	h := newHome(t)
	h.env["API"] = url
	h.load("gone.yaml", "tools:\n  - name: gone\n    description: d\n    http: {method: POST, url: \"${API}/\"}\n")
	tl, _ := h.reg.Get("gone")
	_, err := tl.Call(context.Background(), json.RawMessage(`{}`))
	te, ok := tool.AsError(err)
	if !ok || te.Code != tool.CodeUpstreamUnavailable || !te.Retryable {
		t.Errorf("err = %#v, want retryable upstream_unavailable", err)
	}
}

func TestHTTPTextAndMaxBytes(t *testing.T) {
	api := newAPI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, strings.Repeat("abcd", 100))
	})
	h := newHome(t)
	h.env["API"] = api.URL
	h.load("t.yaml", "tools:\n  - name: txt\n    description: d\n    http: {url: \"${API}/\", max_bytes: 10, select: .a}\n")
	got := h.call(context.Background(), "txt", `{}`).(map[string]any)
	if got["data"] != "abcdabcdab" || !strings.Contains(got["note"].(string), "cut at 10 bytes") {
		t.Errorf("got %v", got)
	}
}

func TestSelect(t *testing.T) {
	doc := map[string]any{
		"items": []any{map[string]any{"id": 1.0, "name": "a"}, map[string]any{"id": 2.0}},
		"x-y":   "dash",
		"data":  map[string]any{"n": map[string]any{"deep": true}},
	}
	for _, tc := range []struct {
		sel   string
		want  any
		found bool
	}{
		{".", doc, true},
		{".data.n.deep", true, true},
		{".items[0].name", "a", true},
		{".items[-1].id", 2.0, true},
		{".items[].id", []any{1.0, 2.0}, true},
		{".items[].name", []any{"a", nil}, true},
		{`."x-y"`, "dash", true},
		{".items | length", 2, true},
		{". | length", 3, true},
		{".missing", nil, false},
		{".items[5]", nil, false},
		{".x-y.z", nil, false},
	} {
		s, err := parseSelector(tc.sel)
		if tc.sel == ".x-y.z" {
			if err == nil {
				t.Errorf("%s: want a parse error", tc.sel)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.sel, err)
		}
		got, found := s.apply(doc)
		if found != tc.found || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s = %v (found %v), want %v (found %v)", tc.sel, got, found, tc.want, tc.found)
		}
	}
	for _, bad := range []string{"items", ".a[x]", ".a[", ".a | keys", `."unterminated`} {
		if _, err := parseSelector(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestSelectFindsNothingIsANote(t *testing.T) {
	api := newAPI(t, jsonReply(200, `{"other":1}`))
	h := newHome(t)
	h.env["API"] = api.URL
	h.load("n.yaml", "tools:\n  - name: n\n    description: d\n    http: {url: \"${API}/\", select: .items}\n")
	got := h.call(context.Background(), "n", `{}`).(map[string]any)
	if got["data"] != nil || !strings.Contains(fmt.Sprint(got["note"]), "found nothing") {
		t.Errorf("got %v", got)
	}
}
