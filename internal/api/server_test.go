package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/api"
)

// echo is a Run that answers with the turn's text and streams it in two
// pieces, with a tool call between them.
func echo(_ context.Context, t api.Turn, sink agent.Sink) (*api.Result, error) {
	id := t.SessionID
	if id == "" {
		id = "s-new"
	}
	if t.Started != nil {
		t.Started(id)
	}
	sink.Event(agent.Event{Kind: agent.EventText, Text: "you said: "})
	sink.Event(agent.Event{Kind: agent.EventToolStarted, Tool: &agent.ToolEvent{}})
	sink.Event(agent.Event{Kind: agent.EventText, Text: t.Text})
	return &api.Result{SessionID: id, Result: &agent.Result{Final: "you said: " + t.Text, Stopped: agent.StopDone}}, nil
}

func newServer(t *testing.T, opt api.Options) *httptest.Server {
	t.Helper()
	if opt.Run == nil {
		opt.Run = echo
	}
	if opt.MaxBodyBytes == 0 {
		opt.MaxBodyBytes = 1 << 20
	}
	if opt.MaxConcurrentRuns == 0 {
		opt.MaxConcurrentRuns = 2
	}
	s := api.New(opt)
	srv := httptest.NewServer(s)
	t.Cleanup(s.Close)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, srv *httptest.Server, key, body string, hdr ...string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// apiErr reads an error response and checks it has OpenAI's shape.
func apiErr(t *testing.T, resp *http.Response) (msg, param string) {
	t.Helper()
	var e struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
		t.Fatalf("status %d: not an OpenAI error (%v): %+v", resp.StatusCode, err, e)
	}
	if e.Error.Param != nil {
		param = *e.Error.Param
	}
	return e.Error.Message, param
}

const hello = `{"model":"hermes","messages":[{"role":"user","content":"hello"}]}`

// Every endpoint but /health needs one of the keys, sent as a bearer
// token; a missing, wrong, prefixed or differently cased key is refused.
func TestAuthRefusedWithoutKey(t *testing.T) {
	srv := newServer(t, api.Options{Keys: []string{"sk-one", "sk-two"}})
	for _, key := range []string{"", "sk-on", "sk-one2", "SK-ONE", "Basic sk-one"} {
		resp := post(t, srv, key, hello)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("key %q: status %d, want 401", key, resp.StatusCode)
			continue
		}
		if msg, _ := apiErr(t, resp); !strings.Contains(msg, "Authorization: Bearer") {
			t.Errorf("key %q: %q does not say how to authenticate", key, msg)
		}
	}
	for _, key := range []string{"sk-one", "sk-two"} {
		if resp := post(t, srv, key, hello); resp.StatusCode != http.StatusOK {
			t.Errorf("key %q: status %d, want 200", key, resp.StatusCode)
		}
	}
	resp, err := http.Get(srv.URL + "/v1/models")
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /v1/models without a key: %v %v", resp.StatusCode, err)
	}
	resp, err = http.Get(srv.URL + "/health")
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("GET /health: %v %v %v", resp.StatusCode, resp.Header, err)
	}
}

// A browser origin not listed is refused, preflight or not; a listed one
// gets its CORS headers.
func TestCORSRefusedForUnknownOrigin(t *testing.T) {
	srv := newServer(t, api.Options{CORSOrigins: []string{"https://chat.example.com"}})
	for _, method := range []string{"OPTIONS", "POST"} {
		for _, origin := range []string{"https://evil.example", "https://chat.example.com.evil.example", "null", "http://chat.example.com"} {
			req, _ := http.NewRequest(method, srv.URL+"/v1/chat/completions", strings.NewReader(hello))
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s from %s: status %d, allow-origin %q; want 403 and none", method, origin, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
			}
		}
	}
	req, _ := http.NewRequest("OPTIONS", srv.URL+"/v1/chat/completions", nil)
	req.Header.Set("Origin", "https://chat.example.com")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "https://chat.example.com" || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight from the listed origin: %d %v", resp.StatusCode, resp.Header)
	}
}

// A body over the limit gets 413 naming the setting, before any turn.
func TestBodyTooLarge(t *testing.T) {
	srv := newServer(t, api.Options{MaxBodyBytes: 2048, Run: func(context.Context, api.Turn, agent.Sink) (*api.Result, error) {
		t.Error("a turn ran for a body over the limit")
		return nil, nil
	}})
	big := `{"model":"hermes","messages":[{"role":"user","content":"` + strings.Repeat("a", 4096) + `"}]}`
	resp := post(t, srv, "", big)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
	if msg, _ := apiErr(t, resp); !strings.Contains(msg, "api.max_body_bytes") {
		t.Errorf("%q does not name api.max_body_bytes", msg)
	}
}

// Past max_concurrent_runs running turns, a request gets 429 in OpenAI's
// shape; once a turn ends, the next one runs.
func TestTooManyRuns(t *testing.T) {
	entered, leave := make(chan struct{}), make(chan struct{})
	srv := newServer(t, api.Options{MaxConcurrentRuns: 1, Run: func(ctx context.Context, tr api.Turn, sink agent.Sink) (*api.Result, error) {
		if tr.Text == "block" {
			entered <- struct{}{}
			<-leave
		}
		return echo(ctx, tr, sink)
	}})
	done := make(chan int)
	go func() {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/chat/completions", strings.NewReader(`{"messages":[{"role":"user","content":"block"}]}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-entered
	resp := post(t, srv, "", hello)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second run: status %d, want 429", resp.StatusCode)
	}
	if msg, _ := apiErr(t, resp); !strings.Contains(msg, "api.max_concurrent_runs") {
		t.Errorf("%q does not name the limit", msg)
	}
	close(leave)
	if code := <-done; code != http.StatusOK {
		t.Errorf("first run: status %d", code)
	}
	if resp := post(t, srv, "", hello); resp.StatusCode != http.StatusOK {
		t.Errorf("after the first ended: status %d", resp.StatusCode)
	}
}

// A client that goes away cancels its turn.
func TestDisconnectCancelsTurn(t *testing.T) {
	entered, cancelled := make(chan struct{}), make(chan error, 1)
	srv := newServer(t, api.Options{Run: func(ctx context.Context, tr api.Turn, _ agent.Sink) (*api.Result, error) {
		close(entered)
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	}})
	for _, body := range []string{`{"stream":true,"messages":[{"role":"user","content":"x"}]}`} {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/chat/completions", strings.NewReader(body))
		go func() {
			<-entered
			cancel()
		}()
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		if err := <-cancelled; err == nil {
			t.Errorf("the turn's context did not end")
		}
	}
}
