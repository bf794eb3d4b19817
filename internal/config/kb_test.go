package config

import (
	"strings"
	"testing"
)

// TestKBSection reads kb.sources and refuses entries without a path and
// names hermes kb would not accept, naming key, value and what is.
func TestKBSection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": `kb:
  sources:
    - path: ~/docs
      kb: team
      tags: [ops, runbook]
    - path: https://example.com/handbook.html
`}, nil, nil)
	s := l.Config.KB.Sources
	if len(s) != 2 || s[0].Path != "~/docs" || s[0].KB != "team" || strings.Join(s[0].Tags, ",") != "ops,runbook" || s[1].KB != "" {
		t.Errorf("kb.sources = %+v", s)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"kb: {sources: [{kb: team}]}\n", `kb.sources[0].path: "" is not accepted; give a file, a folder or an http(s) URL`},
		{"kb: {sources: [{path: x, kb: my team}]}\n", `kb.sources[0].kb: "my team" is not accepted; use 1–64 letters`},
		{"kb: {sources: [{path: x, tags: [ok, \"a,b\"]}]}\n", `kb.sources[0].tags[1]: "a,b" is not accepted`},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
	}
}

// TestKBEmbedding reads kb.embedding and refuses a provider that is not
// configured or built in, auto, and a missing model.
func TestKBEmbedding(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": `providers:
  local: {base_url: "http://127.0.0.1:11434/v1"}
kb:
  embedding: {provider: local, model: nomic-embed-text}
`}, nil, nil)
	if e := l.Config.KB.Embedding; e.Provider != "local" || e.Model != "nomic-embed-text" || !e.Set() {
		t.Errorf("kb.embedding = %+v", e)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"kb: {embedding: {provider: nowhere, model: m}}\n", `kb.embedding.provider: "nowhere" is not accepted; use one of`},
		{"kb: {embedding: {provider: auto, model: m}}\n", `kb.embedding.provider: "auto" is not accepted`},
		{"kb: {embedding: {model: m}}\n", `kb.embedding.provider: "" is not accepted`},
		{"kb: {embedding: {provider: openai}}\n", `kb.embedding.model: "" is not accepted; name the embedding model`},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
	}
}
