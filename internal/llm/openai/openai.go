// Package openai speaks OpenAI's two wire protocols: Chat Completions
// (spoken by OpenAI and by nearly every compatible server: OpenRouter,
// DeepSeek, DashScope, Groq, Mistral, Gemini's compatibility endpoint,
// Ollama, vLLM, llama.cpp) and the Responses API. Both are thin clients over
// net/http that translate between hermes's canonical llm types and the wire,
// and tolerate the ways real servers bend the protocol.
package openai

import (
	"context"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

// authHeaders returns the headers that authenticate a request with key.
func authHeaders(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"Authorization": "Bearer " + key}
}

// modelList is the /models reply: OpenAI's {"data":[...]} with the
// context-length fields that OpenRouter, vLLM and others add.
type modelList struct {
	Data []struct {
		ID            string `json:"id"`
		OwnedBy       string `json:"owned_by"`
		Created       int64  `json:"created"`
		ContextLength int    `json:"context_length"`
		MaxModelLen   int    `json:"max_model_len"`
	} `json:"data"`
}

// listModels fetches ep's /models.
func listModels(ctx context.Context, ep llm.Endpoint) ([]llm.ModelInfo, error) {
	resp, err := ep.Get(ctx, "/models", authHeaders(ep.APIKey))
	if err != nil {
		return nil, err
	}
	data, err := llm.ReadBody(resp)
	if err != nil {
		return nil, err
	}
	var list modelList
	if err := llm.DecodeJSON(ep.Name, data, &list); err != nil {
		return nil, err
	}
	out := make([]llm.ModelInfo, 0, len(list.Data))
	for _, m := range list.Data {
		info := llm.ModelInfo{ID: m.ID, OwnedBy: m.OwnedBy, ContextLength: m.ContextLength}
		if info.ContextLength == 0 {
			info.ContextLength = m.MaxModelLen
		}
		if m.Created > 0 {
			info.Created = time.Unix(m.Created, 0).UTC()
		}
		out = append(out, info)
	}
	return out, nil
}
