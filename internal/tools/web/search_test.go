package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

const (
	braveKey  = "BSA-secret-brave-key"
	tavilyKey = "tvly-secret-tavily-key"
)

// backendServer answers like the three search services, after checking
// the request each one expects; a request it does not accept fails the
// test and gets a 400.
func backendServer(t *testing.T, n int) *httptest.Server {
	fail := func(w http.ResponseWriter, format string, args ...any) {
		t.Errorf(format, args...)
		http.Error(w, "bad request", http.StatusBadRequest)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) { // SearXNG
		if q := r.URL.Query(); q.Get("q") != "tidal power" || q.Get("format") != "json" {
			fail(w, "searxng query = %v", q)
			return
		}
		var res []string
		for i := range n {
			res = append(res, fmt.Sprintf(`{"title":"Searx %d","url":"https://example.org/%d","content":"About   tides &amp; turbines","engine":"duckduckgo","score":1.5}`, i, i))
		}
		fmt.Fprintf(w, `{"query":"tidal power","number_of_results":%d,"results":[%s],"answers":[],"infoboxes":[]}`, n, strings.Join(res, ","))
	})
	mux.HandleFunc("GET /res/v1/web/search", func(w http.ResponseWriter, r *http.Request) { // Brave
		q := r.URL.Query()
		if r.Header.Get("X-Subscription-Token") != braveKey {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"type":"ErrorResponse","error":{"status":401,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token %s is invalid."}}`, r.Header.Get("X-Subscription-Token"))
			return
		}
		if q.Get("q") != "tidal power" || q.Get("count") != "3" {
			fail(w, "brave query = %v", q)
			return
		}
		fmt.Fprint(w, `{"type":"search","query":{"original":"tidal power"},"web":{"type":"search","results":[
			{"title":"Tidal <strong>power</strong> - Wikipedia","url":"https://en.wikipedia.org/wiki/Tidal_power","description":"<strong>Tidal power</strong> is a form of hydropower.","language":"en"},
			{"title":"No URL","description":"dropped"},
			{"title":"Tides","url":"https://example.org/tides","description":"More."}]}}`)
	})
	mux.HandleFunc("POST /search", func(w http.ResponseWriter, r *http.Request) { // Tavily
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		if r.Header.Get("Authorization") != "Bearer "+tavilyKey || r.Header.Get("Content-Type") != "application/json" {
			fail(w, "tavily headers = %v", r.Header)
			return
		}
		if !reflect.DeepEqual(body, map[string]any{"query": "tidal power", "max_results": 2.0}) {
			fail(w, "tavily body = %v", body)
			return
		}
		fmt.Fprint(w, `{"query":"tidal power","answer":null,"images":[],"results":[
			{"title":"Tidal energy","url":"https://example.com/a","content":"Tidal energy explained.","score":0.9,"raw_content":null},
			{"title":"Ocean power","url":"https://example.com/b","content":"Ocean power overview.","score":0.8,"raw_content":null}],"response_time":0.5}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func search(t *testing.T, s *Search, args string) ([]Hit, error) {
	t.Helper()
	v, err := s.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	return v.([]Hit), nil
}

func TestSearchBackends(t *testing.T) {
	srv := backendServer(t, 12)
	base := Options{Client: srv.Client(), SearxURL: srv.URL + "/", BraveKey: braveKey, TavilyKey: tavilyKey,
		BaseURLs: map[string]string{BackendBrave: srv.URL, BackendTavily: srv.URL}}
	tests := []struct {
		backend, args string
		want          []Hit
		count         int
	}{
		{BackendSearxNG, `{"query": "tidal power"}`, []Hit{{"Searx 0", "https://example.org/0", "About tides & turbines"}}, DefaultLimit},
		{BackendSearxNG, `{"query": "tidal power", "limit": 50}`, nil, MaxLimit},
		{BackendBrave, `{"query": " tidal power ", "limit": 3}`, []Hit{
			{"Tidal power - Wikipedia", "https://en.wikipedia.org/wiki/Tidal_power", "Tidal power is a form of hydropower."},
			{"Tides", "https://example.org/tides", "More."},
		}, 2},
		{BackendTavily, `{"query": "tidal power", "limit": 2}`, []Hit{
			{"Tidal energy", "https://example.com/a", "Tidal energy explained."},
			{"Ocean power", "https://example.com/b", "Ocean power overview."},
		}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.backend+tc.args, func(t *testing.T) {
			o := base
			o.Backend = tc.backend
			s := NewSearch(o)
			if err := s.Available(); err != nil {
				t.Fatal(err)
			}
			hits, err := search(t, s, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != tc.count {
				t.Errorf("%d hits, want %d", len(hits), tc.count)
			}
			if len(tc.want) > 0 && (len(hits) < len(tc.want) || !reflect.DeepEqual(hits[:len(tc.want)], tc.want)) {
				t.Errorf("hits = %+v\nwant %+v", hits, tc.want)
			}
		})
	}
}

func TestSearchEmpty(t *testing.T) {
	srv := backendServer(t, 0)
	s := NewSearch(Options{Client: srv.Client(), Backend: BackendSearxNG, SearxURL: srv.URL})
	v, err := s.Call(context.Background(), json.RawMessage(`{"query": "tidal power"}`))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(v); string(b) != "[]" {
		t.Errorf("no results marshal as %s, want []", b)
	}
}

func TestSearchErrors(t *testing.T) {
	srv := backendServer(t, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(slow.Close)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><body>upstream   engines\n\nunreachable</body></html>"+strings.Repeat("x", 1000))
	}))
	t.Cleanup(down.Close)
	tests := []struct {
		name    string
		opts    Options
		args    string
		code    tool.Code
		mention string
	}{
		{"bad key", Options{Client: srv.Client(), Backend: BackendBrave, BraveKey: "wrong-key-123", BaseURLs: map[string]string{BackendBrave: srv.URL}},
			`{"query": "q"}`, tool.CodeUpstreamUnavailable, "brave search failed: HTTP 401 Unauthorized: {\"type\":\"ErrorResponse\""},
		{"5xx", Options{Client: down.Client(), Backend: BackendSearxNG, SearxURL: down.URL},
			`{"query": "q"}`, tool.CodeUpstreamUnavailable, "HTTP 502 Bad Gateway: <html><body>upstream engines unreachable</body></html>xxx"},
		{"timeout", Options{Client: slow.Client(), Backend: BackendSearxNG, SearxURL: slow.URL, FetchTimeout: 100 * time.Millisecond},
			`{"query": "q"}`, tool.CodeTimeout, "100ms"},
		{"blocked", Options{Client: &http.Client{Transport: blockingTransport{}}, Backend: BackendSearxNG, SearxURL: "http://10.0.0.5:8080"},
			`{"query": "q"}`, tool.CodeDenied, "refused to fetch 10.0.0.5:8080: 10.0.0.5 is a private address"},
		{"empty query", Options{Client: srv.Client(), Backend: BackendSearxNG, SearxURL: srv.URL},
			`{"query": "  "}`, tool.CodeInvalidArguments, "query is empty"},
		{"not configured", Options{Client: srv.Client(), Backend: BackendTavily},
			`{"query": "q"}`, tool.CodeUpstreamUnavailable, "Tavily API key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := search(t, NewSearch(tc.opts), tc.args)
			te, ok := tool.AsError(err)
			if !ok || te.Code != tc.code || !strings.Contains(te.Message, tc.mention) {
				t.Fatalf("error = %v\nwant %s mentioning %q", err, tc.code, tc.mention)
			}
			if strings.Contains(te.Message, "wrong-key-123") || len(te.Message) > 400 {
				t.Errorf("message leaks the key or is too long: %q", te.Message)
			}
		})
	}
}

func TestSearchAvailable(t *testing.T) {
	c := http.DefaultClient
	tests := []struct {
		opts    Options
		mention string // empty: available
	}{
		{Options{Client: c, Backend: "searxng", SearxURL: "http://searx.lan"}, ""},
		{Options{Client: c, Backend: " Brave ", BraveKey: "k"}, ""},
		{Options{Client: c, Backend: "tavily", TavilyKey: "k"}, ""},
		{Options{Client: c}, "no search backend configured"},
		{Options{Client: c, Backend: "searxng"}, "SearXNG instance"},
		{Options{Client: c, Backend: "brave"}, "Brave Search API key"},
		{Options{Client: c, Backend: "google"}, `unknown search backend "google"`},
		{Options{Backend: "brave", BraveKey: "k"}, "no HTTP client"},
	}
	for _, tc := range tests {
		err := NewSearch(tc.opts).Available()
		if tc.mention == "" && err != nil || tc.mention != "" && (err == nil || !strings.Contains(err.Error(), tc.mention)) {
			t.Errorf("%+v: Available() = %v, want %q", tc.opts, err, tc.mention)
		}
	}
	s := NewSearch(Options{}).Spec()
	if s.Name != "web_search" || s.Toolset != "web" || !s.ParallelSafe || !s.Idempotent || !json.Valid(s.Parameters) {
		t.Errorf("spec = %+v", s)
	}
}
