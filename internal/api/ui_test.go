package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/api"
)

// TestUIMountedBesideTheAPI checks /ui goes to the dashboard, which
// checks logins itself (a browser sends no bearer key, and its same-origin
// forms carry an Origin the API's CORS list need not name), while every
// other path still needs the key.
func TestUIMountedBesideTheAPI(t *testing.T) {
	var seen []string
	ui := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.Path)
		w.WriteHeader(http.StatusTeapot)
	})
	srv := newServer(t, api.Options{Keys: []string{"k"}, UI: ui})
	for _, tc := range []struct {
		method, path, origin string
		want                 int
	}{
		{"GET", "/ui", "", http.StatusTeapot},
		{"GET", "/ui/sessions", "", http.StatusTeapot},
		{"POST", "/ui/jobs/x/run", srv.URL, http.StatusTeapot},
		{"GET", "/uix", "", http.StatusUnauthorized},
		{"GET", "/v1/models", "", http.StatusUnauthorized},
		{"GET", "/v1/sessions", "", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(""))
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s = %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}
	if len(seen) != 3 {
		t.Errorf("the dashboard saw %v, want only the three /ui requests", seen)
	}
}
