package openai

import (
	"context"
	"iter"
	"mime"
	"net/http"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/sse"
)

// Responses is a provider speaking OpenAI's Responses API (POST /responses).
//
// hermes uses the API statelessly: every request carries the whole
// conversation in "input", sets "store": false and never refers to a
// previous_response_id, so the session store stays the one source of truth
// and a conversation can move between providers. Reasoning models then need
// their encrypted reasoning items sent back with each request; the adapter
// asks for them ("include": ["reasoning.encrypted_content"]), keeps them on
// the assistant message as llm.ReasoningBlocks and replays them.
type Responses struct{ ep llm.Endpoint }

// NewResponses returns a Responses API provider for ep.
func NewResponses(ep llm.Endpoint) *Responses { return &Responses{ep: ep.Resolved()} }

// Name returns the configured provider name.
func (r *Responses) Name() string { return r.ep.Name }

// ListModels lists the endpoint's models.
func (r *Responses) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	return listModels(ctx, r.ep)
}

// Stream sends req to the endpoint's /responses and yields its events. The
// wire is streamed unless req.NoStream is set; either way the caller sees
// deltas followed by exactly one EventDone or EventError. Breaking out of
// the loop closes the response body, which cancels the HTTP request. A
// reply that passes its llm.Budget is cut with an error of kind
// reply_too_large.
func (r *Responses) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		body, err := r.requestBody(req)
		if err != nil {
			yield(llm.Event{Kind: llm.EventError, Err: err})
			return
		}
		resp, err := r.ep.Post(ctx, "/responses", authHeaders(r.ep.APIKey), body)
		if err != nil {
			yield(llm.Event{Kind: llm.EventError, Err: err})
			return
		}
		defer resp.Body.Close()
		budget := llm.NewBudget(r.ep.Name, req.MaxTokens)
		if kind := responsesMediaType(resp); kind == "application/json" || (req.NoStream && kind != "text/event-stream") {
			r.parseWhole(ctx, resp, budget, yield)
			return
		}
		p := &responsesStream{prov: r, ctx: ctx, yield: yield, budget: budget}
		p.run(sse.NewReaderLimit(budget.Body(resp.Body), budget.MaxBody()))
	}
}

// responsesMediaType returns the reply's media type. The reply's own
// Content-Type decides how it is read, whatever was asked for: a server
// that ignores "stream": true answers with one JSON document, and one that
// streams anyway is still understood.
func responsesMediaType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt
}

// responsesFinish normalizes a response status. A completed response that
// asked for tools finishes with tool_calls, because Responses has no
// separate finish reason for that; an incomplete one says why in
// incomplete_details.reason ("max_output_tokens" or "content_filter").
func responsesFinish(status, incompleteReason string, calls int) llm.FinishReason {
	switch status {
	case "completed", "":
		if calls > 0 {
			return llm.FinishToolCalls
		}
		return llm.FinishStop
	case "incomplete":
		if incompleteReason == "content_filter" {
			return llm.FinishContentFilter
		}
		return llm.FinishLength
	}
	return llm.FinishError
}

// failedError builds the error of a response whose status is failed (or
// cancelled) from its "error" object, which OpenAI fills with only code and
// message; llm.ParseError reads it so that any shape a server sends works.
func (r *Responses) failedError(obj *responsesObject, inStream bool) *llm.Error {
	var e *llm.Error
	if obj.hasError() {
		env := make([]byte, 0, len(obj.Error)+10)
		env = append(append(append(env, `{"error":`...), obj.Error...), '}')
		e = llm.ParseError(r.ep.Name, 0, nil, env)
	} else {
		e = &llm.Error{Provider: r.ep.Name}
	}
	if e.Message == "" {
		e.Message = "the response ended with status " + obj.Status
		e.Kind = llm.Classify(0, e.Type, e.Code, e.Message)
	}
	e.InStream = inStream
	return e
}

// Interface guards.
var (
	_ llm.Provider    = (*Responses)(nil)
	_ llm.ModelLister = (*Responses)(nil)
)
