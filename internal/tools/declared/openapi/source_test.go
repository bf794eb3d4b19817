package openapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileStem(t *testing.T) {
	for _, tc := range []struct{ prefix, title, want string }{
		{"pet", "Swagger Petstore", "pet"},
		{"", "Swagger Petstore — v2!", "swagger-petstore-v2"},
		{"", "  订单 API  ", "api"},
		{"", "", "openapi"},
		{"__", "中文", "openapi"},
	} {
		if got := FileStem(tc.prefix, tc.title); got != tc.want {
			t.Errorf("FileStem(%q, %q) = %q, want %q", tc.prefix, tc.title, got, tc.want)
		}
	}
}

func TestReadFileAndURL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "api.yaml")
	if err := os.WriteFile(path, []byte("openapi: 3.1.0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(context.Background(), path); err != nil || string(data) != "openapi: 3.1.0\n" {
		t.Errorf("Read(file) = %q, %v", data, err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/openapi.json" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"openapi":"3.0.3"}`))
	}))
	defer srv.Close()
	if data, err := Read(context.Background(), srv.URL+"/openapi.json"); err != nil || !strings.Contains(string(data), "3.0.3") {
		t.Errorf("Read(url) = %q, %v", data, err)
	}
	if _, err := Read(context.Background(), srv.URL+"/missing"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("Read(missing url) = %v, want the HTTP status", err)
	}
}
