package llmtest

import (
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
)

// chatProtocol writes OpenAI Chat Completions replies: a chat.completion
// object, or a stream of chat.completion.chunk objects ending in
// "data: [DONE]".
type chatProtocol struct{}

func (chatProtocol) requestIDHeader() string { return "x-request-id" }

func (chatProtocol) errorBody(status int, e ErrorReply, _ string) any {
	return openAIErrorBody(status, e)
}

// chatUsage is the usage object of both reply forms.
type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func chatUsageOf(u llm.Usage) chatUsage {
	c := chatUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: total(u)}
	c.PromptTokensDetails.CachedTokens = u.CacheReadTokens
	c.CompletionTokensDetails.ReasoningTokens = u.ReasoningTokens
	return c
}

// chatCall is a tool call of a message, or a fragment of one in a delta.
type chatCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// chatChoice is a choice of either form: Message in a chat.completion,
// Delta in a chunk. They are interfaces so that an empty delta is still
// sent as {} while the field the form does not use is left out.
type chatChoice struct {
	Index        int       `json:"index"`
	Message      any       `json:"message,omitempty"`
	Delta        any       `json:"delta,omitempty"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

// chatObject is a chat.completion or a chat.completion.chunk. Usage is raw
// so that a chunk can carry "usage": null (as OpenAI sends when usage was
// asked for), a usage object, or nothing.
type chatObject struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint *string         `json:"system_fingerprint"`
	Choices           []chatChoice    `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
}

func chatID(a *answer) string { return fmt.Sprintf("chatcmpl-llmtest%d", a.req.Index) }

// body returns the chat.completion object. Content is null when the
// reply is only tool calls, as OpenAI sends it.
func (chatProtocol) body(a *answer) any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if a.text != "" || len(a.calls) == 0 {
		msg["content"] = a.text
	}
	if a.reasoning != "" {
		msg["reasoning_content"] = a.reasoning
	}
	if len(a.calls) > 0 {
		calls := make([]chatCall, len(a.calls))
		for i, c := range a.calls {
			calls[i] = chatCall{ID: c.ID, Type: "function", Function: chatFunction{Name: c.Name, Arguments: c.Arguments}}
		}
		msg["tool_calls"] = calls
	}
	finish := string(a.finish)
	return chatObject{
		ID: chatID(a), Object: "chat.completion", Created: created, Model: a.model,
		Choices: []chatChoice{{Index: 0, Message: msg, FinishReason: &finish}},
		Usage:   marshal(chatUsageOf(a.usage)),
	}
}

// stream sends the role delta, reasoning_content and content deltas, each
// tool call as a fragment with index, id and name followed by argument
// fragments, the finish chunk, the usage chunk with "choices": [] when
// stream_options.include_usage asked for it, and "data: [DONE]". An
// in-stream error replaces everything after the content with an
// "event: error" carrying OpenAI's error object, and no [DONE].
func (chatProtocol) stream(sw *sseWriter, a *answer) {
	var usageNull json.RawMessage
	if a.req.includeUsage {
		usageNull = json.RawMessage("null")
	}
	chunk := func(delta map[string]any, finish *string) {
		sw.event("", chatObject{
			ID: chatID(a), Object: "chat.completion.chunk", Created: created, Model: a.model,
			Choices: []chatChoice{{Index: 0, Delta: delta, FinishReason: finish}},
			Usage:   usageNull,
		})
	}
	first := map[string]any{"role": "assistant", "content": ""}
	if a.text == "" && a.reasoning == "" && len(a.calls) > 0 {
		first["content"] = nil
	}
	chunk(first, nil)
	for _, s := range chunks(a.reasoning, a.chunk) {
		chunk(map[string]any{"reasoning_content": s}, nil)
	}
	for _, s := range chunks(a.text, a.chunk) {
		chunk(map[string]any{"content": s}, nil)
	}
	for i, c := range a.calls {
		index := i
		chunk(map[string]any{"tool_calls": []chatCall{{Index: &index, ID: c.ID, Type: "function", Function: chatFunction{Name: c.Name}}}}, nil)
		for _, s := range chunks(c.Arguments, a.chunk) {
			chunk(map[string]any{"tool_calls": []chatCall{{Index: &index, Function: chatFunction{Arguments: s}}}}, nil)
		}
	}
	if a.streamErr != nil {
		sw.event("error", map[string]any{"error": openAIError(0, *a.streamErr)})
		return
	}
	finish := string(a.finish)
	chunk(map[string]any{}, &finish)
	if a.req.includeUsage {
		sw.event("", chatObject{
			ID: chatID(a), Object: "chat.completion.chunk", Created: created, Model: a.model,
			Choices: []chatChoice{}, Usage: marshal(chatUsageOf(a.usage)),
		})
	}
	sw.write("", []byte("[DONE]"))
}
