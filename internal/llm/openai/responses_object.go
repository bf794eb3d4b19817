package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// responsesObject is the Response object: the whole body of a
// non-streamed reply, and the payload of the response.* lifecycle events of
// a streamed one. Only the fields hermes reads are declared.
type responsesObject struct {
	ID                string          `json:"id"`
	Model             string          `json:"model"`
	Status            string          `json:"status"`
	Output            []responsesItem `json:"output"`
	Usage             *responsesUsage `json:"usage"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// hasError reports whether the object carries an error (not absent, not
// null).
func (o *responsesObject) hasError() bool {
	return len(o.Error) > 0 && string(o.Error) != "null"
}

// responsesText is a JSON scalar kept as text: a string unquoted, null as
// "", a number as its digits.
type responsesText string

// UnmarshalJSON accepts any JSON value.
func (t *responsesText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*t = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = responsesText(s)
	default:
		*t = responsesText(b)
	}
	return nil
}

// responsesUsage is the usage block of a finished response. Cached input
// tokens are part of input_tokens on this API, so InputTokens is already the
// whole prompt as hermes counts it.
type responsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	TotalTokens        int `json:"total_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// canonical maps the usage block to llm.Usage; a response without one
// (every event before the last) counts nothing.
func (u *responsesUsage) canonical() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return llm.Usage{
		InputTokens:     u.InputTokens,
		OutputTokens:    u.OutputTokens,
		TotalTokens:     u.TotalTokens,
		CacheReadTokens: u.InputTokensDetails.CachedTokens,
		ReasoningTokens: u.OutputTokensDetails.ReasoningTokens,
	}
}

// responsesItem is one output item. hermes reads three kinds: "message"
// (Content of output_text or refusal parts), "reasoning" (Summary of
// summary_text parts, EncryptedContent, and Content of reasoning_text parts
// from open-weight servers) and "function_call" (CallID, Name, Arguments).
// Other kinds (built-in tool calls) are ignored.
type responsesItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Content          responsesParts  `json:"content"`
	Summary          responsesParts  `json:"summary"`
	EncryptedContent string          `json:"encrypted_content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
}

// responsesPart is one content or summary part: output_text and refusal in
// messages, summary_text and reasoning_text in reasoning items.
type responsesPart struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

// responsesParts is a content or summary list, decoded leniently: output
// items hermes does not read (built-in tool calls, future kinds) may use
// these names for other shapes, and must not make the whole reply
// undecodable. A plain string becomes one text part; a part that does not
// decode is dropped; anything else is no parts.
type responsesParts []responsesPart

// UnmarshalJSON implements the lenient decoding.
func (ps *responsesParts) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*ps = nil
	switch {
	case len(b) == 0:
	case b[0] == '[':
		if json.Unmarshal(b, (*[]responsesPart)(ps)) == nil {
			return nil
		}
		var raw []json.RawMessage
		if json.Unmarshal(b, &raw) != nil {
			return nil
		}
		for _, r := range raw {
			var p responsesPart
			if json.Unmarshal(r, &p) == nil {
				*ps = append(*ps, p)
			}
		}
	case b[0] == '"':
		var s string
		if json.Unmarshal(b, &s) == nil {
			*ps = responsesParts{{Type: "output_text", Text: s}}
		}
	}
	return nil
}

// text returns the visible text of a message item. A refusal is shown as
// text: it is what the model said.
// size is what the item holds, in bytes, as a reply's budget counts it.
func (it *responsesItem) size() int {
	n := len(it.Arguments) + len(it.EncryptedContent)
	for _, parts := range []responsesParts{it.Content, it.Summary} {
		for _, p := range parts {
			n += len(p.Text) + len(p.Refusal)
		}
	}
	return n
}

func (it *responsesItem) text() string {
	var b strings.Builder
	for _, p := range it.Content {
		switch p.Type {
		case "output_text":
			b.WriteString(p.Text)
		case "refusal":
			b.WriteString(p.Refusal)
		}
	}
	return b.String()
}

// reasoning returns the text of a reasoning item: its summary parts joined
// with no separator, or, when there is no summary, its reasoning_text.
func (it *responsesItem) reasoning() string {
	var b strings.Builder
	for _, p := range it.Summary {
		b.WriteString(p.Text)
	}
	if b.Len() == 0 {
		for _, p := range it.Content {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// responsesMessage assembles the assistant message from output items.
// Tool calls go through llm.ToolCallAccumulator so that empty arguments
// become "{}" and a call without call_id gets a stable invented one (seeded
// by the response id); the id hermes keeps is call_id, which the next
// request's function_call_output must name, not the item id.
func responsesMessage(items []responsesItem, seed string) llm.Message {
	msg := llm.Message{Role: llm.RoleAssistant}
	var text, reasoning strings.Builder
	var calls llm.ToolCallAccumulator
	for i := range items {
		it := &items[i]
		switch it.Type {
		case "message":
			text.WriteString(it.text())
		case "reasoning":
			r := it.reasoning()
			reasoning.WriteString(r)
			msg.ReasoningBlocks = append(msg.ReasoningBlocks,
				llm.ReasoningBlock{Type: "reasoning", ID: it.ID, Text: r, Data: it.EncryptedContent})
		case "function_call":
			calls.Add(i, it.CallID, it.Name, llm.ArgumentsText(it.Arguments))
		}
	}
	if text.Len() > 0 {
		msg.Content = []llm.Part{llm.TextPart(text.String())}
	}
	msg.Reasoning = reasoning.String()
	msg.ToolCalls = calls.Calls(seed)
	return msg
}

// response builds the canonical response from a response object whose
// items are given (the object's own, or those assembled from a stream).
func (r *Responses) response(obj *responsesObject, items []responsesItem) *llm.Response {
	resp := &llm.Response{
		ID:              obj.ID,
		Model:           obj.Model,
		Provider:        r.ep.Name,
		Message:         responsesMessage(items, obj.ID),
		RawFinishReason: obj.Status,
		Usage:           obj.Usage.canonical(),
	}
	reason := ""
	if obj.IncompleteDetails != nil {
		reason = obj.IncompleteDetails.Reason
	}
	resp.FinishReason = responsesFinish(obj.Status, reason, len(resp.Message.ToolCalls))
	return resp
}

// parseWhole reads a non-streamed reply and yields the events a stream of
// it would have carried: reasoning, text, each tool call whole, usage, and
// the final event.
func (r *Responses) parseWhole(ctx context.Context, hr *http.Response, budget *llm.Budget, yield func(llm.Event) bool) {
	data, err := budget.ReadAll(hr)
	if err != nil {
		yield(llm.Event{Kind: llm.EventError, Err: llm.ReadError(ctx, r.ep.Name, err)})
		return
	}
	var obj responsesObject
	if err := llm.DecodeJSON(r.ep.Name, data, &obj); err != nil {
		yield(llm.Event{Kind: llm.EventError, Err: err})
		return
	}
	if obj.ID == "" && obj.Output == nil && obj.Status == "" {
		// Not a response object: an error envelope sent with status 200,
		// or something else entirely.
		e := llm.ParseError(r.ep.Name, 0, hr.Header, data)
		if e.Message == "" {
			e = llm.InvalidResponse(r.ep.Name, "reply is not a response object", data)
		}
		yield(llm.Event{Kind: llm.EventError, Err: e})
		return
	}
	for i := range obj.Output {
		budget.Part()
		budget.Spend(obj.Output[i].size())
	}
	if err := budget.Err(); err != nil {
		yield(llm.Event{Kind: llm.EventError, Err: err})
		return
	}
	resp := r.response(&obj, obj.Output)
	m := resp.Message
	if m.Reasoning != "" && !yield(llm.Event{Kind: llm.EventReasoning, Text: m.Reasoning}) {
		return
	}
	if t := m.Text(); t != "" && !yield(llm.Event{Kind: llm.EventText, Text: t}) {
		return
	}
	for i, c := range m.ToolCalls {
		if !yield(llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: c.Arguments}}) {
			return
		}
	}
	if obj.Usage != nil && !yield(llm.Event{Kind: llm.EventUsage, Usage: resp.Usage}) {
		return
	}
	if resp.FinishReason == llm.FinishError {
		e := r.failedError(&obj, false)
		e.RequestID = llm.RequestID(hr.Header)
		yield(llm.Event{Kind: llm.EventError, Err: e, Response: resp})
		return
	}
	yield(llm.Event{Kind: llm.EventDone, Response: resp})
}
