package openai

import (
	"context"
	"iter"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// Chat is a Chat Completions provider: POST {BaseURL}/chat/completions, the
// protocol OpenAI introduced and nearly every compatible server speaks.
// Because so many servers speak it slightly differently, the parser is
// lenient in what it accepts (see chatReply) and the request builder adapts
// the few fields that some hosts reject (see chatBody).
type Chat struct {
	ep llm.Endpoint
	// completionTokens is set for api.openai.com, whose reasoning models
	// reject max_tokens and want max_completion_tokens instead.
	completionTokens bool
	// noStreamOptions is set for api.mistral.ai, which rejects unknown
	// fields and does not know stream_options.
	noStreamOptions bool
}

// NewChat returns a Chat Completions provider for ep.
func NewChat(ep llm.Endpoint) *Chat {
	ep = ep.Resolved()
	host := ""
	if u, err := url.Parse(ep.BaseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	return &Chat{
		ep:               ep,
		completionTokens: chatHostIs(host, "api.openai.com"),
		noStreamOptions:  chatHostIs(host, "api.mistral.ai"),
	}
}

// chatHostIs reports whether host is domain or one of its subdomains.
func chatHostIs(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// Name returns the configured provider name.
func (c *Chat) Name() string { return c.ep.Name }

// Stream sends req to the endpoint and yields the reply's events. The HTTP
// request is made when the sequence is first ranged over; breaking out of
// the loop or cancelling ctx closes the response body, which aborts the
// request at once.
//
// The reply is parsed according to what the server actually sent (an SSE
// stream or one JSON body), not what was asked for, because some servers
// ignore "stream" in one direction or the other. Either way it is cut,
// with an error of kind reply_too_large, once it passes its llm.Budget.
func (c *Chat) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		if req == nil {
			yield(llm.Event{Kind: llm.EventError, Err: &llm.Error{Kind: llm.ErrBadRequest, Provider: c.ep.Name, Message: "chat completions: nil request"}})
			return
		}
		body, err := c.body(req)
		if err != nil {
			yield(llm.Event{Kind: llm.EventError, Err: &llm.Error{Kind: llm.ErrBadRequest, Provider: c.ep.Name, Message: "encode request: " + err.Error(), Err: err}})
			return
		}
		resp, err := c.ep.Post(ctx, "/chat/completions", authHeaders(c.ep.APIKey), body)
		if err != nil {
			yield(llm.Event{Kind: llm.EventError, Err: err})
			return
		}
		defer resp.Body.Close()
		ct := strings.ToLower(resp.Header.Get("Content-Type"))
		streamed := !req.NoStream
		switch {
		case strings.Contains(ct, "event-stream"):
			streamed = true
		case strings.Contains(ct, "json"):
			streamed = false
		}
		budget := llm.NewBudget(c.ep.Name, req.MaxTokens)
		r := newChatReply(c.ep.Name, budget)
		if streamed {
			c.readStream(ctx, r, resp.Body, yield)
			return
		}
		data, err := budget.ReadAll(resp)
		if err != nil {
			r.fail(yield, llm.ReadError(ctx, c.ep.Name, err))
			return
		}
		c.readJSON(r, data, yield)
	}
}

// ListModels lists the endpoint's models.
func (c *Chat) ListModels(ctx context.Context) ([]llm.ModelInfo, error) { return listModels(ctx, c.ep) }

// Interface guards.
var (
	_ llm.Provider    = (*Chat)(nil)
	_ llm.ModelLister = (*Chat)(nil)
)
