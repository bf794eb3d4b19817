package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// TestKBEmbeddingSearch: with kb.embedding set, hermes kb add embeds the
// chunks through the provider's /embeddings, and hermes kb search embeds
// the query once and fuses vector similarity with BM25 (the kb package's
// tests show vectors finding what BM25 misses).
func TestKBEmbeddingSearch(t *testing.T) {
	srv := llmtest.New(t)
	h := newHome(t)
	h.write("config.yaml", `providers:
  local: {base_url: "`+srv.URL()+`/v1", api_key: sk-emb-123456}
kb:
  embedding: {provider: local, model: llmtest-embed}
`)
	dir := kbDocs(t)
	r := h.hermes("kb", "add", dir, "--kb", "team")
	if r.code != 0 || strings.Contains(r.stderr, "not embedded") {
		t.Fatalf("kb add: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if srv.EmbeddingCalls() == 0 {
		t.Fatal("kb add made no /embeddings call")
	}
	hits := kbSearch(t, h, "deployed gateway balancers restarts")
	if len(hits) == 0 || filepath.Base(hits[0].Source) != "deploy.md" {
		t.Fatalf("hybrid search: %+v", hits)
	}
	if r := h.hermes("kb", "list"); !strings.Contains(r.stdout, "chunks embedded by local/llmtest-embed (64 dimensions), searched exactly") {
		t.Errorf("kb list does not tell of the vectors:\n%s", r.stdout)
	}
	calls := srv.EmbeddingCalls()
	kbSearch(t, h, "payroll")
	if srv.EmbeddingCalls() != calls+1 {
		t.Errorf("search made %d /embeddings calls, want 1 (the query)", srv.EmbeddingCalls()-calls)
	}
}

// TestKBEmbeddingProviderRefused: kb.embedding naming an unknown
// provider is refused with the key, the value and what is accepted.
func TestKBEmbeddingProviderRefused(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "kb:\n  embedding: {provider: nowhere, model: m}\n")
	r := h.hermes("kb", "list")
	if r.code == 0 || !strings.Contains(r.stderr, `kb.embedding.provider: "nowhere" is not accepted`) {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestKBChatWithVectors: in hermes chat -q with kb.embedding set, the
// model's kb_search embeds the query once and the passage with its
// citation reaches the model; with the embedding server gone, the same
// search still answers from BM25 and tells the model it matched by
// keywords only.
func TestKBChatWithVectors(t *testing.T) {
	emb := llmtest.New(t)
	h := newHome(t)
	h.write("config.yaml", `providers:
  local: {base_url: "`+emb.URL()+`/v1", api_key: sk-emb-123456}
kb:
  embedding: {provider: local, model: llmtest-embed}
`)
	dir := kbDocs(t)
	if r := h.hermes("kb", "add", dir); r.code != 0 {
		t.Fatalf("kb add: %s", r.stderr)
	}
	cite := filepath.Join(dir, "deploy.md") + ":2-3 (Runbook > Deploy)"
	args, _ := json.Marshal(map[string]any{"query": "gateway rolling restart", "limit": 3})
	for _, down := range []bool{false, true} {
		if down {
			emb.Close()
		}
		srv := llmtest.New(t)
		srv.Enqueue(
			llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "kb_search", Arguments: string(args)}}},
			llmtest.Reply{Text: "With a rolling restart."},
		)
		calls := emb.EmbeddingCalls()
		out, r := h.chatIn(srv, t.TempDir(), "How do we deploy the gateway?")
		if r.code != 0 || out.Final != "With a rolling restart." {
			t.Fatalf("down=%v: exit %d %+v\n%s", down, r.code, out, r.stderr)
		}
		res := lastToolResult(t, srv, 1)
		if !strings.Contains(res, cite) || !strings.Contains(res, "rolling restart") {
			t.Errorf("down=%v: the passage and its citation did not reach the model:\n%s", down, res)
		}
		if degraded := strings.Contains(res, "keywords only"); degraded != down {
			t.Errorf("down=%v: the result says keywords only: %v\n%s", down, degraded, res)
		}
		if !down && emb.EmbeddingCalls() != calls+1 {
			t.Errorf("the search made %d /embeddings calls, want 1", emb.EmbeddingCalls()-calls)
		}
	}
}
