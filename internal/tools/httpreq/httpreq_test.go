package httpreq

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// echoServer answers by path: it reports what it received, or sends a
// canned response.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-RateLimit-Remaining", "41")
		w.Header().Set("Set-Cookie", "session=abc")
		json.NewEncoder(w).Encode(map[string]any{
			"method":       r.Method,
			"query":        r.URL.RawQuery,
			"content_type": r.Header.Get("Content-Type"),
			"auth":         r.Header.Get("Authorization"),
			"user_agent":   r.Header.Get("User-Agent"),
			"body":         string(body),
		})
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such item", http.StatusNotFound)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, strings.Repeat("é", MaxTextChars+10))
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2000)...))
	})
	mux.HandleFunc("/untyped-json", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		io.WriteString(w, ` [ 1, 2 ,3 ] `)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func call(t *testing.T, h *HTTPRequest, args string) (*Result, error) {
	t.Helper()
	v, err := h.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	return v.(*Result), nil
}

func local() *HTTPRequest { return New(&netguard.Guard{AllowPrivate: true}) }

func TestRequests(t *testing.T) {
	srv := echoServer(t)
	h := local()
	tests := []struct {
		name, args string
		check      func(t *testing.T, r *Result)
	}{
		{"get json", `{"url": "` + srv.URL + `/echo", "query": {"q": "cats", "page": 2, "tag": ["a", "b"]}}`, func(t *testing.T, r *Result) {
			if r.Status != 200 || r.StatusText != "OK" || r.BodyFormat != FormatJSON {
				t.Fatalf("got %+v", r)
			}
			var got map[string]string
			json.Unmarshal(r.Body.(json.RawMessage), &got)
			if got["method"] != "GET" || got["query"] != "page=2&q=cats&tag=a&tag=b" || got["body"] != "" || !strings.HasPrefix(got["user_agent"], "hermes") {
				t.Errorf("server saw %v", got)
			}
			if r.Headers["x-ratelimit-remaining"] != "41" || r.Headers["content-type"] != "application/json" {
				t.Errorf("headers %v", r.Headers)
			}
			if _, ok := r.Headers["set-cookie"]; ok {
				t.Error("set-cookie was passed to the model")
			}
		}},
		{"post json", `{"method": "post", "url": "` + srv.URL + `/echo", "json": {"a": [1, 2]}, "headers": {"Authorization": "Bearer t0k"}}`, func(t *testing.T, r *Result) {
			var got map[string]string
			json.Unmarshal(r.Body.(json.RawMessage), &got)
			if got["method"] != "POST" || got["body"] != `{"a":[1,2]}` || got["content_type"] != "application/json" || got["auth"] != "Bearer t0k" {
				t.Errorf("server saw %v", got)
			}
		}},
		{"put raw body", `{"method": "PUT", "url": "` + srv.URL + `/echo", "body": "a=1", "headers": {"Content-Type": "application/x-www-form-urlencoded"}}`, func(t *testing.T, r *Result) {
			var got map[string]string
			json.Unmarshal(r.Body.(json.RawMessage), &got)
			if got["method"] != "PUT" || got["body"] != "a=1" || got["content_type"] != "application/x-www-form-urlencoded" {
				t.Errorf("server saw %v", got)
			}
		}},
		{"head", `{"method": "HEAD", "url": "` + srv.URL + `/echo"}`, func(t *testing.T, r *Result) {
			if r.Status != 200 || r.BodyFormat != FormatNone || r.Body != nil {
				t.Errorf("got %+v", r)
			}
		}},
		{"404 is a result", `{"url": "` + srv.URL + `/missing"}`, func(t *testing.T, r *Result) {
			if r.Status != 404 || r.StatusText != "Not Found" || r.BodyFormat != FormatText || !strings.Contains(r.Body.(string), "no such item") {
				t.Errorf("got %+v", r)
			}
		}},
		{"long text cut", `{"url": "` + srv.URL + `/text"}`, func(t *testing.T, r *Result) {
			s := r.Body.(string)
			if r.BodyFormat != FormatText || !r.Truncated || len([]rune(s)) != MaxTextChars || !strings.Contains(r.Note, "50000") {
				t.Errorf("format %s truncated %v runes %d note %q", r.BodyFormat, r.Truncated, len([]rune(s)), r.Note)
			}
		}},
		{"binary summarized", `{"url": "` + srv.URL + `/png"}`, func(t *testing.T, r *Result) {
			if r.BodyFormat != FormatBinary || r.Body != nil || !strings.Contains(r.Note, "image/png") || !strings.Contains(r.Note, "2008 bytes") {
				t.Errorf("got %+v", r)
			}
		}},
		{"untyped json", `{"url": "` + srv.URL + `/untyped-json"}`, func(t *testing.T, r *Result) {
			if r.BodyFormat != FormatJSON || string(r.Body.(json.RawMessage)) != "[1,2,3]" {
				t.Errorf("got %+v", r)
			}
		}},
		{"redirect followed", `{"url": "` + srv.URL + `/redirect"}`, func(t *testing.T, r *Result) {
			if r.Status != 200 || !strings.HasSuffix(r.FinalURL, "/echo") {
				t.Errorf("got %+v", r)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := call(t, h, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, r)
		})
	}
}

func wantCode(t *testing.T, err error, code tool.Code, mentions ...string) {
	t.Helper()
	te, ok := tool.AsError(err)
	if !ok || te.Code != code {
		t.Fatalf("error = %v, want %s", err, code)
	}
	for _, m := range mentions {
		if !strings.Contains(te.Message, m) {
			t.Errorf("message %q does not mention %q", te.Message, m)
		}
	}
}

func TestInvalidArguments(t *testing.T) {
	h := local()
	for _, tt := range []struct{ args, mention string }{
		{`{"url": ""}`, "empty"},
		{`{"url": "example.com/x"}`, "scheme"},
		{`{"url": "ftp://example.com/x"}`, "not supported"},
		{`{"url": "https://x.example", "method": "TRACE"}`, "TRACE"},
		{`{"url": "https://x.example", "json": {"a": 1}, "body": "b"}`, "not both"},
		{`{"url": "https://x.example", "method": "HEAD", "body": "b"}`, "HEAD"},
		{`{"url": "https://x.example", "headers": {"Bad Name": "x"}}`, "Bad Name"},
		{`{"url": "https://x.example", "headers": {"X-A": "a\r\nX-B: b"}}`, "line break"},
		{`{"url": "https://x.example", "query": {"a": {"b": 1}}}`, "query parameter"},
		{`{"url": "https://x.example", "timeout": 500}`, "timeout"},
	} {
		_, err := h.Call(context.Background(), json.RawMessage(tt.args))
		wantCode(t, err, tool.CodeInvalidArguments, tt.mention)
	}
}

func TestDefaultGuardRefusesLoopback(t *testing.T) {
	srv := echoServer(t)
	h := New(nil)
	_, err := call(t, h, `{"url": "`+srv.URL+`/echo"}`)
	wantCode(t, err, tool.CodeDenied, "loopback", "allow_private_urls")

	// By name, the refusal happens when connecting.
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	_, err = call(t, h, `{"url": "`+byName+`/echo"}`)
	wantCode(t, err, tool.CodeDenied, "loopback")

	_, err = call(t, h, `{"url": "http://169.254.169.254/latest/meta-data/"}`)
	wantCode(t, err, tool.CodeDenied, "metadata")
}

func TestFailures(t *testing.T) {
	srv := echoServer(t)
	h := local()
	_, err := call(t, h, `{"url": "`+srv.URL+`/slow", "timeout": 1}`)
	wantCode(t, err, tool.CodeTimeout, "1s")

	closed := httptest.NewServer(http.NotFoundHandler())
	addr := closed.URL
	closed.Close()
	_, err = call(t, h, `{"url": "`+addr+`/", "headers": {"Authorization": "Bearer very-secret-value"}}`)
	wantCode(t, err, tool.CodeUpstreamUnavailable, "refused")
	if strings.Contains(err.Error(), "very-secret-value") {
		t.Errorf("error repeats a request header: %v", err)
	}
}

func TestSpec(t *testing.T) {
	s := New(nil).Spec()
	if s.Name != "http_request" || s.Toolset != "web" || s.ParallelSafe || s.Idempotent || s.Timeout <= MaxTimeout {
		t.Errorf("spec %+v", s)
	}
	if !json.Valid(s.Parameters) || !strings.Contains(s.Description, "web_extract") {
		t.Error("bad parameters or description")
	}
}
