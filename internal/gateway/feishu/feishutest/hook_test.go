package feishutest

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// newHook serves h for a test and returns its URL.
func newHook(t *testing.T, h http.HandlerFunc) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
