package openai

import (
	"context"
	"iter"

	"github.com/hermes-go/hermes/llm"
)

// Chat is a Chat Completions provider. (Placeholder: being written.)
type Chat struct{ ep llm.Endpoint }

// NewChat returns a Chat Completions provider for ep.
func NewChat(ep llm.Endpoint) *Chat { return &Chat{ep: ep.Resolved()} }

// Name returns the configured provider name.
func (c *Chat) Name() string { return c.ep.Name }

// Stream is not written yet.
func (c *Chat) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return llm.Fail(&llm.Error{Kind: llm.ErrBadRequest, Message: "chat completions: not implemented yet"})
}

// ListModels lists the endpoint's models.
func (c *Chat) ListModels(ctx context.Context) ([]llm.ModelInfo, error) { return listModels(ctx, c.ep) }
