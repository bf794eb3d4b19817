package facts

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/dbtest"
)

// topicServer is an OpenAI-compatible /v1/embeddings server whose vectors
// encode topics: each dimension is one topic, set when the text names any
// of its words. Texts about the same topic in different words are close,
// as real embeddings make them.
func topicServer(t *testing.T, topics [][]string) (*httptest.Server, *[]string) {
	t.Helper()
	var (
		mu    sync.Mutex
		auths []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "embed-model" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []datum
		// Answer in reverse order: clients must use index.
		for i := len(req.Input) - 1; i >= 0; i-- {
			v := make([]float32, len(topics)+1)
			v[len(topics)] = 0.1 // a little shared direction
			text := strings.ToLower(req.Input[i])
			for d, words := range topics {
				for _, w := range words {
					if strings.Contains(text, w) {
						v[d] = 1
					}
				}
			}
			data = append(data, datum{Index: i, Embedding: v})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	t.Cleanup(srv.Close)
	return srv, &auths
}

func TestEmbedOpenAI(t *testing.T) {
	srv, auths := topicServer(t, [][]string{{"cat"}, {"dog"}})
	embed := EmbedOpenAI(srv.URL+"/v1/", "secret-key", "embed-model")
	vecs, err := embed(context.Background(), []string{"a cat", "a dog", "neither"})
	if err != nil {
		t.Fatalf("embed: %v", err)
	}
	if len(vecs) != 3 || vecs[0][0] != 1 || vecs[0][1] != 0 || vecs[1][1] != 1 || vecs[2][0] != 0 {
		t.Errorf("vectors out of order or wrong: %v", vecs)
	}
	if (*auths)[0] != "Bearer secret-key" {
		t.Errorf("Authorization %q", (*auths)[0])
	}
	if _, err := EmbedOpenAI(srv.URL+"/v1", "k", "other-model")(context.Background(), []string{"x"}); err == nil ||
		!strings.Contains(err.Error(), "400") {
		t.Errorf("a rejected request gave %v, want an error naming the status", err)
	}
}

// TestEmbeddingsBlend shows what vectors add: a question that shares no
// word with a fact but is about the same thing recalls it.
func TestEmbeddingsBlend(t *testing.T) { eachBackend(t, testEmbeddingsBlend) }

func testEmbeddingsBlend(t *testing.T, backend string) {
	srv, _ := topicServer(t, [][]string{
		{"chinese", "中文", "language", "mandarin"},
		{"deploy", "部署", "production", "release", "ship"},
	})
	s := openOn(t, backend, Options{Embed: EmbedOpenAI(srv.URL+"/v1", "", "embed-model")})
	ctx := context.Background()
	mustAdd(t, s,
		Fact{Kind: KindPreference, Subject: "language", Content: "The user wants answers in Chinese."},
		Fact{Kind: KindDecision, Subject: "release", Content: "Production deploys need a green integration run first."},
	)
	var blobs int
	s.read.QueryRow(`SELECT count(*) FROM fact_vectors WHERE length(vector) = 12`).Scan(&blobs)
	if blobs != 2 {
		t.Fatalf("%d facts have a 3-dimension vector, want 2", blobs)
	}
	for _, tc := range []struct{ message, want string }{
		{"用中文回答我", "Chinese"},                   // no shared word: vectors alone
		{"can we ship it today?", "Production"}, // likewise
		{"what language should you answer me in", "Chinese"},
		{"what is 2+2", ""},
	} {
		got, err := Recall(ctx, s, tc.message, 3)
		if err != nil {
			t.Fatalf("Recall(%q): %v", tc.message, err)
		}
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("Recall(%q) = %+v, want nothing", tc.message, got)
		case tc.want != "" && (len(got) == 0 || !strings.Contains(got[0].Content, tc.want)):
			t.Errorf("Recall(%q) = %+v, want first a fact containing %q", tc.message, got, tc.want)
		}
	}

	// Without a working embedder, words still work.
	bad := New(s.db, Options{Embed: EmbedOpenAI(srv.URL+"/nowhere", "", "embed-model")})
	if n, err := bad.Add(ctx, []Fact{{Kind: KindFact, Content: "The user's editor is Helix."}}); err != nil || n != 1 {
		t.Errorf("Add with a failing embedder: %d, %v; want the fact stored", n, err)
	}
	if got, err := Recall(ctx, bad, "what language should you answer me in", 3); err != nil || len(got) != 1 {
		t.Errorf("Recall with a failing embedder: %+v, %v", got, err)
	}
}

// Backfill gives a vector of the store's model to the facts stored
// without one, or with one of another model, and to none twice; search
// compares a query's vector only with vectors of the same model.
func TestBackfill(t *testing.T) { eachBackend(t, testBackfill) }

func testBackfill(t *testing.T, backend string) {
	ctx := context.Background()
	db := dbtest.Open(t, backend)
	mustAdd(t, New(db, Options{}),
		Fact{Kind: KindPreference, Subject: "language", Content: "The user wants answers in Chinese."},
		Fact{Kind: KindDecision, Subject: "release", Content: "Production deploys need a green integration run first."})
	var calls []int
	topics := func(model string) EmbedFunc {
		return func(_ context.Context, texts []string) ([][]float32, error) {
			calls = append(calls, len(texts))
			out := make([][]float32, len(texts))
			for i, t := range texts {
				v := []float32{0, 0, 0.1}
				if strings.Contains(t, "Chinese") || strings.Contains(t, "中文") {
					v[0] = 1
				}
				if strings.Contains(t, "deploy") || strings.Contains(t, "ship") {
					v[1] = 1
				}
				if model == "other" {
					v[0], v[1] = v[1], v[0] // another model's space
				}
				out[i] = v
			}
			return out, nil
		}
	}
	s := New(db, Options{Embed: topics("topics"), EmbedModel: "local/topics"})
	if got, _ := Recall(ctx, s, "用中文回答我", 3); len(got) != 0 {
		t.Fatalf("before the backfill a fact without a vector was recalled by vectors: %+v", got)
	}
	calls = nil
	n, err := s.Backfill(ctx)
	if err != nil || n != 2 || len(calls) != 1 || calls[0] != 2 {
		t.Fatalf("Backfill = %d, %v; embed calls %v; want both facts in one call", n, err, calls)
	}
	if n, err := s.Backfill(ctx); err != nil || n != 0 {
		t.Fatalf("a second Backfill = %d, %v; want nothing to do", n, err)
	}
	if got, _ := Recall(ctx, s, "用中文回答我", 3); len(got) != 1 || !strings.Contains(got[0].Content, "Chinese") {
		t.Fatalf("after the backfill: %+v, want the Chinese fact by its vector", got)
	}
	// Another model configured: its queries ignore the old vectors until
	// the backfill made them again in its space.
	other := New(db, Options{Embed: topics("other"), EmbedModel: "local/other"})
	if got, _ := Recall(ctx, other, "用中文回答我", 3); len(got) != 0 {
		t.Fatalf("a query of another model was compared with the old vectors: %+v", got)
	}
	if n, err := other.Backfill(ctx); err != nil || n != 2 {
		t.Fatalf("Backfill under another model = %d, %v; want both again", n, err)
	}
	if got, _ := Recall(ctx, other, "用中文回答我", 3); len(got) != 1 || !strings.Contains(got[0].Content, "Chinese") {
		t.Fatalf("after the other model's backfill: %+v", got)
	}
}
