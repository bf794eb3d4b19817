// Package anthropic speaks Anthropic's Messages API.
package anthropic

import (
	"context"
	"iter"

	"github.com/hermes-go/hermes/llm"
)

// Client is an Anthropic Messages provider. (Placeholder: being written.)
type Client struct{ ep llm.Endpoint }

// New returns a Messages API provider for ep.
func New(ep llm.Endpoint) *Client { return &Client{ep: ep.Resolved()} }

// Name returns the configured provider name.
func (c *Client) Name() string { return c.ep.Name }

// Stream is not written yet.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return llm.Fail(&llm.Error{Kind: llm.ErrBadRequest, Message: "anthropic: not implemented yet"})
}
