package openai

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

func TestEmbeddingsBatchesAndKeepsOrder(t *testing.T) {
	s := llmtest.New(t)
	e := NewEmbeddings(llm.Endpoint{Name: "local", BaseURL: s.URL() + "/v1", Model: "emb", APIKey: "sk-test"})
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = fmt.Sprintf("passage number %d about topic %d", i, i%7)
	}
	vecs, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for _, i := range []int{0, 63, 64, 149} {
		if want := llmtest.Embed(texts[i]); vecs[i][3] != want[3] || vecs[i][40] != want[40] {
			t.Errorf("vector %d is not its text's", i)
		}
	}
	if n := s.EmbeddingCalls(); n != 3 {
		t.Errorf("%d calls, want 3 batches of at most %d", n, EmbedBatch)
	}
}

// TestEmbeddingsErrors covers the endpoint's failures: each is a
// classified *llm.Error naming the provider, and none shows the key.
func TestEmbeddingsErrors(t *testing.T) {
	const key = "sk-secret-4242"
	cases := []struct {
		name   string
		status int
		body   string
		kind   llm.ErrorKind
	}{
		{"auth", 401, `{"error":{"message":"Incorrect API key provided: sk-secret-4242","type":"invalid_request_error","code":"invalid_api_key"}}`, llm.ErrAuth},
		{"rate", 429, `{"error":{"message":"Rate limit reached","type":"requests"}}`, llm.ErrRateLimited},
		{"server", 500, `{"error":{"message":"boom"}}`, llm.ErrServer},
		{"not json", 200, `not json`, llm.ErrInvalidResponse},
		{"missing item", 200, `{"data":[{"index":0,"embedding":[1,0]}]}`, llm.ErrInvalidResponse},
		{"bad index", 200, `{"data":[{"index":5,"embedding":[1,0]},{"index":1,"embedding":[0,1]}]}`, llm.ErrInvalidResponse},
		{"ragged", 200, `{"data":[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[0,1,0]}]}`, llm.ErrInvalidResponse},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer ts.Close()
			e := NewEmbeddings(llm.Endpoint{Name: "emb-provider", BaseURL: ts.URL, Model: "m", APIKey: key})
			_, err := e.Embed(t.Context(), []string{"a", "b"})
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != c.kind {
				t.Fatalf("error %v, want kind %s", err, c.kind)
			}
			if !strings.Contains(err.Error(), "emb-provider") {
				t.Errorf("error %q does not name the provider", err)
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("error %q shows the key", err)
			}
		})
	}
}
