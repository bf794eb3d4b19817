package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
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
