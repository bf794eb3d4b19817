package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/llm"
)

const probeKey = "sk-probe-0123456789abcdef"

// TestProbeStaysAtTheBaseURL: a server that redirects the model list or
// the test call elsewhere does not get the key carried there, whichever
// protocol carries it (Authorization or x-api-key).
func TestProbeStaysAtTheBaseURL(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer other.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	for _, mode := range []config.APIMode{config.ChatCompletions, config.AnthropicMessages} {
		pr, err := NewProbe(config.Resolved{Provider: "custom", BaseURL: redirector.URL + "/v1", APIMode: mode, APIKey: probeKey, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pr.Models(context.Background()); err == nil {
			t.Errorf("%s: listing through a redirect succeeded", mode)
		}
		if _, err := pr.Call(context.Background(), "m"); err == nil {
			t.Errorf("%s: the test call through a redirect succeeded", mode)
		}
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect target got %d requests", n)
	}
}

// TestProbeErrorsHoldNoKey: a server that echoes the key in its error
// body does not get it printed.
func TestProbeErrorsHoldNoKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + probeKey + `","type":"invalid_request_error"}}`))
	}))
	defer srv.Close()
	pr, err := NewProbe(config.Resolved{Provider: "openai", BaseURL: srv.URL + "/v1", APIMode: config.ChatCompletions, APIKey: probeKey})
	if err != nil {
		t.Fatal(err)
	}
	_, lerr := pr.Models(context.Background())
	_, cerr := pr.Call(context.Background(), "m")
	for _, err := range []error{lerr, cerr} {
		if err == nil || strings.Contains(err.Error(), probeKey) {
			t.Errorf("error %v: want one without the key", err)
		}
		if llm.KindOf(err) != llm.ErrAuth {
			t.Errorf("error %v is of kind %q, want auth", err, llm.KindOf(err))
		}
	}
}
