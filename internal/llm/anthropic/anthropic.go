// Package anthropic speaks Anthropic's Messages API (POST /v1/messages),
// streamed as Server-Sent Events or as one JSON reply, and lists models
// (GET /v1/models).
//
// The adapter translates at the edge: hermes's canonical messages become
// Messages content blocks (system prompt moved to the "system" field, tool
// results folded into user turns, thinking blocks sent back verbatim), and
// the reply's blocks become one canonical assistant message. It can mark the
// stable prefix of a conversation for prompt caching, and counts cached
// tokens into the prompt size so that hermes sees the whole context.
package anthropic

import (
	"context"
	"iter"
	"net/url"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

// APIVersion is the anthropic-version header the adapter sends. The wire
// formats this package parses are the ones of this version.
const APIVersion = "2023-06-01"

// Client is an Anthropic Messages provider. It holds no per-call state, so
// one Client serves concurrent calls.
type Client struct {
	ep llm.Endpoint
	// prefix is "/v1" unless the configured base URL already ends in it,
	// so that both "https://api.anthropic.com" and ".../v1" work.
	prefix string
}

// New returns a Messages API provider for ep.
func New(ep llm.Endpoint) *Client {
	ep = ep.Resolved()
	prefix := "/v1"
	if strings.HasSuffix(ep.BaseURL, "/v1") {
		prefix = ""
	}
	return &Client{ep: ep, prefix: prefix}
}

// Name returns the configured provider name.
func (c *Client) Name() string { return c.ep.Name }

// headers are sent with every call: the key goes in x-api-key (Anthropic
// does not take a bearer token) and the version pins the wire format.
func (c *Client) headers() map[string]string {
	h := map[string]string{"anthropic-version": APIVersion}
	if c.ep.APIKey != "" {
		h["x-api-key"] = c.ep.APIKey
	}
	return h
}

// Stream sends req to /v1/messages and yields its events. The wire is
// streamed unless req.NoStream is set; either way the caller receives text,
// reasoning, tool-call and usage events and then exactly one EventDone or
// EventError. Breaking out of the loop closes the response body, which
// cancels the HTTP request at once. A reply that passes its llm.Budget
// (from the max_tokens sent) is cut with an error of kind reply_too_large.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		body, err := c.buildRequest(req)
		if err != nil {
			yield(llm.Event{Kind: llm.EventError, Err: err})
			return
		}
		payload, err := c.body(req, body)
		if err != nil {
			yield(llm.Event{Kind: llm.EventError, Err: &llm.Error{Kind: llm.ErrBadRequest, Provider: c.ep.Name, Message: "encode request: " + err.Error(), Err: err}})
			return
		}
		resp, err := c.ep.Post(ctx, c.prefix+"/messages", c.headers(), payload)
		if err != nil {
			yield(llm.Event{Kind: llm.EventError, Err: llm.ReadError(ctx, c.ep.Name, err)})
			return
		}
		defer resp.Body.Close()
		a := newAssembler(c.ep.Name, body.Model, llm.NewBudget(c.ep.Name, body.MaxTokens))
		// A server that ignores "stream": true (some compatible proxies)
		// answers with one JSON body; read whichever form arrived.
		if !req.NoStream && !strings.Contains(resp.Header.Get("Content-Type"), "application/json") {
			c.readStream(ctx, resp.Body, a, yield)
			return
		}
		c.readMessage(ctx, resp, a, yield)
	}
}

// modelPage is one page of GET /v1/models. Models are listed newest first;
// has_more and last_id drive the pagination.
type modelPage struct {
	Data []struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
		CreatedAt   string `json:"created_at"`
	} `json:"data"`
	HasMore bool   `json:"has_more"`
	LastID  string `json:"last_id"`
}

// maxModelPages bounds the pagination so that a server that keeps
// answering has_more cannot hold the caller forever.
const maxModelPages = 20

// ListModels lists the models the endpoint serves, following the
// pagination until the server says there are no more.
func (c *Client) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	var out []llm.ModelInfo
	after := ""
	for range maxModelPages {
		q := url.Values{"limit": {"1000"}}
		if after != "" {
			q.Set("after_id", after)
		}
		resp, err := c.ep.Get(ctx, c.prefix+"/models?"+q.Encode(), c.headers())
		if err != nil {
			return nil, llm.ReadError(ctx, c.ep.Name, err)
		}
		data, err := llm.ReadBody(resp)
		if err != nil {
			return nil, llm.ReadError(ctx, c.ep.Name, err)
		}
		var page modelPage
		if err := llm.DecodeJSON(c.ep.Name, data, &page); err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			info := llm.ModelInfo{ID: m.ID, DisplayName: m.DisplayName}
			if t, err := time.Parse(time.RFC3339, m.CreatedAt); err == nil {
				info.Created = t.UTC()
			}
			out = append(out, info)
		}
		if !page.HasMore || page.LastID == "" || page.LastID == after {
			break
		}
		after = page.LastID
	}
	return out, nil
}

// Interface guards: Client is a provider that can list its models.
var (
	_ llm.Provider    = (*Client)(nil)
	_ llm.ModelLister = (*Client)(nil)
)
