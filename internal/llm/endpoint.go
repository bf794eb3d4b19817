package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Endpoint is what an adapter needs to reach one configured provider.
type Endpoint struct {
	// Name is the configured provider name, used in errors and logs.
	Name string
	// BaseURL is the API root ("https://api.openai.com/v1",
	// "https://api.anthropic.com", "http://localhost:11434/v1").
	BaseURL string
	// APIKey is the secret; empty for servers that need none.
	APIKey string
	// Model is the model used when a Request names none.
	Model string
	// Headers are extra request headers (OpenRouter's HTTP-Referer, ...).
	Headers map[string]string
	// Timeouts bound each call; the zero value means DefaultTimeouts.
	Timeouts Timeouts
	// Client is the HTTP client; nil means one built from Timeouts.
	Client *http.Client
	// CacheTTL is the lifetime asked for prompt-cache breakpoints on
	// Anthropic-protocol endpoints: "" (the vendor's default, 5 minutes)
	// or "1h".
	CacheTTL string
}

// Resolved returns a copy with defaults filled in: timeouts, client and a
// base URL without a trailing slash.
func (e Endpoint) Resolved() Endpoint {
	if e.Timeouts == (Timeouts{}) {
		e.Timeouts = DefaultTimeouts
	}
	if e.Client == nil {
		e.Client = NewHTTPClient(e.Timeouts)
	}
	e.BaseURL = strings.TrimRight(e.BaseURL, "/")
	return e
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// Post sends body as JSON (an Encoded body as it is) to the endpoint's BaseURL+path with the given
// headers (added to Endpoint.Headers). A response with status 400 or above
// is read, closed and returned as a classified *Error; otherwise the caller
// owns the response and must close its body.
func (e Endpoint) Post(ctx context.Context, path string, headers map[string]string, body any) (*http.Response, error) {
	buf, ok := body.(Encoded)
	var err error
	if !ok {
		buf, err = json.Marshal(body)
	}
	if err != nil {
		return nil, &Error{Kind: ErrBadRequest, Provider: e.Name, Message: "encode request: " + err.Error(), Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.BaseURL+path, bytes.NewReader(buf))
	if err != nil {
		return nil, &Error{Kind: ErrBadRequest, Provider: e.Name, Message: "build request: " + err.Error(), Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	return e.do(ctx, req, headers)
}

// Get sends a GET to BaseURL+path, with the same error handling as Post.
func (e Endpoint) Get(ctx context.Context, path string, headers map[string]string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.BaseURL+path, nil)
	if err != nil {
		return nil, &Error{Kind: ErrBadRequest, Provider: e.Name, Message: "build request: " + err.Error(), Err: err}
	}
	return e.do(ctx, req, headers)
}

func (e Endpoint) do(ctx context.Context, req *http.Request, headers map[string]string) (*http.Response, error) {
	for k, v := range e.Headers {
		req.Header.Set(k, v)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := Send(ctx, client, e.Timeouts, e.Name, req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if rerr != nil && len(data) == 0 {
			return nil, rerr
		}
		return nil, htmlError(ParseError(e.Name, resp.StatusCode, resp.Header, data), resp.Header, data)
	}
	if isHTML(resp.Header) {
		resp.Body.Close()
		return nil, notAnAPI(e.Name, req.URL, resp.Header, resp.StatusCode)
	}
	resp.Body = &releasing{ReadCloser: resp.Body, ctx: ctx}
	return resp, nil
}

// releasing is a response body whose Close reads what is left of it
// first (see Release), so that whoever closes it keeps the connection
// reusable.
type releasing struct {
	io.ReadCloser
	ctx context.Context
}

func (r *releasing) Close() error {
	Release(r.ctx, r.ReadCloser)
	return nil
}

// maxBody bounds a body read by ReadBody (model lists and the like; a
// reply's body is bounded by its Budget).
const maxBody = 64 << 20

// ReadBody reads a whole (non-streamed) response body of at most 64 MiB,
// mapping a read failure to the transport error Send's body reports.
func ReadBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxBody {
		return nil, &Error{Kind: ErrReplyTooLarge, Message: fmt.Sprintf("the response body passed %s", size(maxBody))}
	}
	return data, nil
}

// RequestID returns the vendor request id from response headers, if any.
func RequestID(h http.Header) string {
	return firstHeader(h, "x-request-id", "request-id", "x-amzn-requestid")
}

// ModelInfo describes one model an endpoint serves.
type ModelInfo struct {
	ID            string    `json:"id"`
	DisplayName   string    `json:"display_name,omitempty"`
	OwnedBy       string    `json:"owned_by,omitempty"`
	ContextLength int       `json:"context_length,omitempty"`
	Created       time.Time `json:"created,omitempty"`
}

// ModelLister is implemented by providers that can list their models
// (the endpoint's /models).
type ModelLister interface {
	ListModels(ctx context.Context) ([]ModelInfo, error)
}

// DecodeJSON unmarshals data into v, mapping failure to invalid_response.
func DecodeJSON(provider string, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return InvalidResponse(provider, fmt.Sprintf("response is not the expected JSON (%v)", err), data)
	}
	return nil
}
