package app

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/kb"
	"github.com/hermes-go/hermes/internal/llm/openai"
)

// kbEmbedder is the embedder kb.embedding names, nil when it names none.
// Its provider must speak an OpenAI-compatible protocol: the Anthropic
// one has no /embeddings endpoint.
func kbEmbedder(l *config.Loaded) (kb.Embedder, error) {
	e := l.Config.KB.Embedding
	if !e.Set() {
		return nil, nil
	}
	r, err := l.ResolveModel(config.ModelOverride{Provider: e.Provider, Model: e.Model})
	if err != nil {
		return nil, fmt.Errorf("config.yaml: kb.embedding: %w", err)
	}
	if r.APIMode == config.AnthropicMessages {
		return nil, fmt.Errorf("config.yaml: kb.embedding.provider %q speaks anthropic_messages, which has no /embeddings endpoint; name a provider with an OpenAI-compatible one (openai, an Ollama or vLLM server under providers)", e.Provider)
	}
	return openai.NewEmbeddings(r.Endpoint()), nil
}
