package openai

import (
	"context"
	"iter"

	"github.com/hermes-go/hermes/llm"
)

// Responses is an OpenAI Responses API provider. (Placeholder: being written.)
type Responses struct{ ep llm.Endpoint }

// NewResponses returns a Responses API provider for ep.
func NewResponses(ep llm.Endpoint) *Responses { return &Responses{ep: ep.Resolved()} }

// Name returns the configured provider name.
func (r *Responses) Name() string { return r.ep.Name }

// Stream is not written yet.
func (r *Responses) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return llm.Fail(&llm.Error{Kind: llm.ErrBadRequest, Message: "responses: not implemented yet"})
}

// ListModels lists the endpoint's models.
func (r *Responses) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	return listModels(ctx, r.ep)
}
