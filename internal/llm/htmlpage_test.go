package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A web page where a model's reply was expected says the base URL is not
// a model API and is not retried; a proxy's error page keeps its status's
// kind (a 502 is retried) with the page's title instead of its markup.
func TestWebPageIsNotAModelAPI(t *testing.T) {
	for _, tc := range []struct {
		name, ctype string
		status      int
		kind        ErrorKind
		want        string
	}{
		{"a website at the base URL", "text/html; charset=utf-8", 200, ErrNotFound, "not a model API (got text/html; charset=utf-8 from http://"},
		{"a login portal", "application/xhtml+xml", 200, ErrNotFound, "check the provider's base_url"},
		{"a proxy's bad gateway page", "text/html", 502, ErrServer, "a web page (text/html), not the API's error: 502 Bad Gateway"},
		{"a server's not-found page", "text/html", 404, ErrNotFound, "not the API's error: 502 Bad Gateway"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(tc.status)
				w.Write([]byte("<!doctype html><html><head><title>\n 502 Bad\tGateway </title></head><body><h1>nginx</h1></body></html>"))
			}))
			defer srv.Close()
			_, err := Endpoint{Name: "p", BaseURL: srv.URL + "/v1"}.Post(context.Background(), "/chat/completions", nil, map[string]any{})
			var e *Error
			if !errors.As(err, &e) || e.Kind != tc.kind || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("err = %v; want kind %s and %q", err, tc.kind, tc.want)
			}
			if strings.Contains(e.Message, "<h1>") {
				t.Errorf("the markup reached the message: %s", e.Message)
			}
			if tc.status == 200 && e.Kind.Retryable() {
				t.Error("a web page is retried")
			}
		})
	}
}
