package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// EmbedBatch is the most texts sent in one /embeddings call: servers cap
// the inputs of one request (OpenAI at 2048, many local ones far lower),
// and a smaller batch keeps one failure from costing a whole ingest.
const EmbedBatch = 64

// Embeddings calls an OpenAI-compatible /embeddings endpoint (OpenAI,
// Ollama's /v1, vLLM, llama.cpp and the hosted compatible ones).
type Embeddings struct {
	ep llm.Endpoint
}

// NewEmbeddings returns a client for ep's /embeddings, embedding with
// ep.Model.
func NewEmbeddings(ep llm.Endpoint) *Embeddings {
	return &Embeddings{ep: ep.Resolved()}
}

// embedReply is the /embeddings reply; index places each vector, since
// the order of data is not promised.
type embedReply struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed returns one vector per text, in order, calling the endpoint once
// per EmbedBatch texts. Errors are *llm.Error classified like a chat's
// (auth, rate_limited, ...); they name the provider, never the key.
func (e *Embeddings) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += EmbedBatch {
		batch := texts[start:min(start+EmbedBatch, len(texts))]
		vecs, err := e.embed(ctx, batch)
		if err != nil {
			return nil, e.hideKey(err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// hideKey masks the API key where the vendor echoed it back in its
// message (OpenAI's "Incorrect API key provided: sk-..."), since the
// error reaches logs and the terminal.
func (e *Embeddings) hideKey(err error) error {
	var le *llm.Error
	if e.ep.APIKey == "" || !errors.As(err, &le) || !strings.Contains(le.Message, e.ep.APIKey) {
		return err
	}
	c := *le
	c.Message = strings.ReplaceAll(c.Message, e.ep.APIKey, "[key hidden]")
	return &c
}

// embed makes one call.
func (e *Embeddings) embed(ctx context.Context, batch []string) ([][]float32, error) {
	body := map[string]any{"model": e.ep.Model, "input": batch}
	resp, err := e.ep.Post(ctx, "/embeddings", authHeaders(e.ep.APIKey), body)
	if err != nil {
		return nil, err
	}
	data, err := llm.ReadBody(resp)
	if err != nil {
		return nil, err
	}
	var rep embedReply
	if err := llm.DecodeJSON(e.ep.Name, data, &rep); err != nil {
		return nil, err
	}
	vecs := make([][]float32, len(batch))
	for _, d := range rep.Data {
		if d.Index < 0 || d.Index >= len(batch) || vecs[d.Index] != nil || len(d.Embedding) == 0 {
			return nil, llm.InvalidResponse(e.ep.Name, fmt.Sprintf("embeddings: item index %d is out of range, repeated or empty (sent %d inputs)", d.Index, len(batch)), data)
		}
		vecs[d.Index] = d.Embedding
	}
	for i, v := range vecs {
		if v == nil {
			return nil, llm.InvalidResponse(e.ep.Name, fmt.Sprintf("embeddings: no vector for input %d of %d", i, len(batch)), data)
		}
		if len(v) != len(vecs[0]) {
			return nil, llm.InvalidResponse(e.ep.Name, fmt.Sprintf("embeddings: vector %d has %d dimensions, vector 0 has %d", i, len(v), len(vecs[0])), data)
		}
	}
	return vecs, nil
}
