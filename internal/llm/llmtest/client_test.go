package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/sse"
)

// endpoint is the path each protocol is served on.
var endpoint = map[API]string{
	ChatCompletions:   "/v1/chat/completions",
	Responses:         "/v1/responses",
	AnthropicMessages: "/v1/messages",
}

// send posts body to the endpoint of api with the headers a real client of
// that protocol sends, and returns the response. The caller closes it.
func send(t *testing.T, srv *Server, api API, body string) *http.Response {
	t.Helper()
	return sendCtx(t, t.Context(), srv, api, body)
}

func sendCtx(t *testing.T, ctx context.Context, srv *Server, api API, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+endpoint[api], strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if api == AnthropicMessages {
		req.Header.Set("anthropic-version", "2023-06-01")
		req.Header.Set("x-api-key", "test-key")
	} else {
		req.Header.Set("Authorization", "Bearer test-key")
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// decodeJSON reads a whole JSON response into a generic value.
func decodeJSON(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("response is not JSON: %v", err)
	}
	return v
}

// event is one SSE event with its data decoded (nil for "[DONE]").
type event struct {
	Name string
	Raw  string
	Data map[string]any
}

// readEvents reads a whole SSE response and checks that every data line
// but [DONE] is a JSON object.
func readEvents(t *testing.T, resp *http.Response) []event {
	t.Helper()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	var out []event
	r := sse.NewReader(resp.Body)
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading stream: %v", err)
		}
		e := event{Name: ev.Name, Raw: string(ev.Data)}
		if e.Raw != "[DONE]" {
			if err := json.Unmarshal(ev.Data, &e.Data); err != nil {
				t.Fatalf("event %q data is not a JSON object: %v: %s", ev.Name, err, ev.Data)
			}
		}
		out = append(out, e)
	}
}

// get walks a decoded JSON value along keys and list indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// str is get for a string leaf.
func str(v any, path ...any) string {
	s, _ := get(v, path...).(string)
	return s
}

// num is get for a number leaf.
func num(v any, path ...any) int {
	f, _ := get(v, path...).(float64)
	return int(f)
}

// has reports whether the object at path has key, even with a null value.
func has(v any, key string, path ...any) bool {
	m, _ := get(v, path...).(map[string]any)
	_, ok := m[key]
	return ok
}
