package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// responsesRequest is the body of POST /responses. Store is always false
// and there is no previous_response_id: hermes keeps the conversation
// itself and sends all of it every time.
type responsesRequest struct {
	Model           string              `json:"model"`
	Instructions    string              `json:"instructions,omitempty"`
	Input           []any               `json:"input"`
	Tools           []responsesTool     `json:"tools,omitempty"`
	ToolChoice      any                 `json:"tool_choice,omitempty"`
	MaxOutputTokens int                 `json:"max_output_tokens,omitempty"`
	Temperature     *float64            `json:"temperature,omitempty"`
	Reasoning       *responsesReasoning `json:"reasoning,omitempty"`
	Include         []string            `json:"include,omitempty"`
	Store           bool                `json:"store"`
	Stream          bool                `json:"stream"`
}

// responsesTool is a function tool. Strict is false because hermes tool
// schemas are not written to strict mode's rules (every property required,
// no additional properties); the tool layer validates arguments instead.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// responsesReasoning asks for a reasoning effort and for summaries, which
// are the only reasoning text OpenAI shows.
type responsesReasoning struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

// responsesInputMessage is a user message, or an assistant message being
// replayed (then Type is "message" and the parts are output_text).
type responsesInputMessage struct {
	Type    string `json:"type,omitempty"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// responsesInputPart is a text part of an input item: input_text, or
// output_text in a replayed assistant message.
type responsesInputPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// responsesInputImage is an input_image part.
type responsesInputImage struct {
	Type     string `json:"type"`
	ImageURL string `json:"image_url"`
}

// responsesInputReasoning replays a reasoning item. With store:false the
// server cannot look the id up, so the encrypted content is what lets a
// reasoning model continue from its own earlier thinking.
type responsesInputReasoning struct {
	Type             string             `json:"type"`
	ID               string             `json:"id,omitempty"`
	EncryptedContent string             `json:"encrypted_content"`
	Summary          []responsesSummary `json:"summary"`
}

// responsesSummary is one summary part of a replayed reasoning item.
type responsesSummary struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// responsesInputCall replays a function call the model made. CallID is
// the id hermes kept for the call, the one its result names.
type responsesInputCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// responsesInputOutput answers a function call. Output is the result text,
// or a list of input parts when the tool returned images.
type responsesInputOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output any    `json:"output"`
}

// responsesEmptySchema stands in for a tool declared without parameters, because the
// API requires a schema on every function tool.
var responsesEmptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// requestBody maps a canonical request to the wire body. Extra fields are
// merged at the top level last, so a configuration can override anything.
func (r *Responses) requestBody(req *llm.Request) (any, error) {
	body := responsesRequest{
		Model:           req.Model,
		Input:           make([]any, 0, len(req.Messages)),
		MaxOutputTokens: req.MaxTokens,
		Temperature:     req.Temperature,
		Stream:          !req.NoStream,
	}
	if body.Model == "" {
		body.Model = r.ep.Model
	}
	var system []string
	for _, m := range req.Messages {
		if m.Role == llm.RoleSystem {
			system = append(system, m.Text())
			continue
		}
		body.Input = responsesAppendInput(body.Input, m)
	}
	body.Instructions = strings.Join(system, "\n\n")
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = responsesEmptySchema
		}
		body.Tools = append(body.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	switch req.ToolChoice {
	case "":
	case "auto", "none", "required":
		body.ToolChoice = req.ToolChoice
	default:
		body.ToolChoice = map[string]string{"type": "function", "name": req.ToolChoice}
	}
	if req.ReasoningEffort != "" {
		body.Reasoning = &responsesReasoning{Effort: req.ReasoningEffort, Summary: "auto"}
		body.Include = []string{"reasoning.encrypted_content"}
	}
	if len(req.Extra) > 0 {
		return responsesMergeExtra(r.ep.Name, body, req.Extra)
	}
	if req.Cache == nil {
		return body, nil
	}
	return responsesEncoded(req, body)
}

// responsesEncoded returns body with its input items and tools taken from
// the turn's cache (see llm.WireCache): each message's items are encoded
// once, and the body is the bytes json.Marshal gives for it whole.
func responsesEncoded(req *llm.Request, body responsesRequest) (any, error) {
	items, err := req.Cache.Messages("responses", req.Messages, func(m llm.Message) ([]byte, error) {
		if m.Role == llm.RoleSystem {
			return []byte("[]"), nil // sent as instructions
		}
		return json.Marshal(responsesAppendInput(nil, m))
	})
	if err != nil {
		return nil, err
	}
	var tools []byte
	if len(body.Tools) > 0 {
		if tools, err = req.Cache.Tools("responses", req.Tools, func([]llm.ToolSpec) ([]byte, error) {
			return json.Marshal(body.Tools)
		}); err != nil {
			return nil, err
		}
	}
	body.Input, body.Tools = nil, nil
	top, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	const hole = `"input":null`
	at := bytes.Index(top, []byte(hole))
	if at < 0 {
		return nil, fmt.Errorf("responses request encoded as %.60s…, without %s", top, hole)
	}
	n := len(top) + len(tools) + 16
	for _, it := range items {
		n += len(it)
	}
	buf := make([]byte, 0, n)
	buf = append(append(buf, top[:at]...), `"input":[`...)
	first := true
	for _, it := range items {
		if len(it) <= 2 || it[0] != '[' { // [] or null: no items
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		buf, first = append(buf, it[1:len(it)-1]...), false
	}
	buf = append(buf, ']')
	if len(tools) > 0 {
		buf = append(append(buf, `,"tools":`...), tools...)
	}
	return llm.Encoded(append(buf, top[at+len(hole):]...)), nil
}

// responsesAppendInput appends the input items of one non-system message.
// An assistant turn becomes several items, in the order the model produced
// them: reasoning, then its text, then its function calls.
func responsesAppendInput(in []any, m llm.Message) []any {
	switch m.Role {
	case llm.RoleUser:
		return append(in, responsesInputMessage{Role: "user", Content: responsesUserParts(m.Content)})
	case llm.RoleAssistant:
		for _, b := range m.ReasoningBlocks {
			// A block without encrypted content cannot be resolved
			// under store:false; sending it would fail the request.
			if b.Type != "reasoning" || b.Data == "" {
				continue
			}
			summary := []responsesSummary{}
			if b.Text != "" {
				summary = append(summary, responsesSummary{Type: "summary_text", Text: b.Text})
			}
			in = append(in, responsesInputReasoning{Type: "reasoning", ID: b.ID, EncryptedContent: b.Data, Summary: summary})
		}
		if text := m.Text(); text != "" {
			in = append(in, responsesInputMessage{Type: "message", Role: "assistant",
				Content: []any{responsesInputPart{Type: "output_text", Text: text}}})
		}
		for _, c := range m.ToolCalls {
			in = append(in, responsesInputCall{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		return in
	case llm.RoleTool:
		var out any = m.Text()
		if m.HasImages() {
			out = responsesUserParts(m.Content)
		}
		return append(in, responsesInputOutput{Type: "function_call_output", CallID: m.ToolCallID, Output: out})
	}
	return in
}

// responsesUserParts maps content parts to input_text and input_image
// parts. An image's URL may be http(s) or a data: URL; the API takes both
// in image_url.
func responsesUserParts(parts []llm.Part) []any {
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case llm.PartImage:
			out = append(out, responsesInputImage{Type: "input_image", ImageURL: p.ImageURL})
		default:
			out = append(out, responsesInputPart{Type: "input_text", Text: p.Text})
		}
	}
	if len(out) == 0 {
		out = append(out, responsesInputPart{Type: "input_text"})
	}
	return out
}

// responsesMergeExtra re-encodes body as a map of top-level fields and sets the extra
// fields over it.
func responsesMergeExtra(provider string, body any, extra map[string]any) (any, error) {
	buf, err := json.Marshal(body)
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrBadRequest, Provider: provider, Message: "encode request: " + err.Error(), Err: err}
	}
	fields := make(map[string]json.RawMessage, len(extra)+12)
	if err := json.Unmarshal(buf, &fields); err != nil {
		return nil, &llm.Error{Kind: llm.ErrBadRequest, Provider: provider, Message: "encode request: " + err.Error(), Err: err}
	}
	for k, v := range extra {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, &llm.Error{Kind: llm.ErrBadRequest, Provider: provider, Message: "encode extra field " + k + ": " + err.Error(), Err: err}
		}
		fields[k] = raw
	}
	return fields, nil
}
