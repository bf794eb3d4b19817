package llmtest

import (
	"encoding/base64"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
)

// anthropicProtocol writes Anthropic Messages replies: a message object
// with thinking, text and tool_use content blocks, or the event stream
// message_start, content_block_start/delta/stop, message_delta,
// message_stop.
type anthropicProtocol struct{}

func (anthropicProtocol) requestIDHeader() string { return "request-id" }

func (anthropicProtocol) errorBody(status int, e ErrorReply, requestID string) any {
	return anthropicErrorBody(status, e, requestID)
}

// anthropicStopReason maps a finish reason to Anthropic's stop_reason.
func anthropicStopReason(f llm.FinishReason) string {
	switch f {
	case llm.FinishStop:
		return "end_turn"
	case llm.FinishLength:
		return "max_tokens"
	case llm.FinishToolCalls:
		return "tool_use"
	case llm.FinishContentFilter:
		return "refusal"
	}
	return string(f)
}

// anthropicUsage reports u the way Anthropic counts: input_tokens
// excludes the prompt tokens read from or written to the cache, which are
// reported apart (hermes's InputTokens includes them).
func anthropicUsage(u llm.Usage, output int) map[string]any {
	in := max(0, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	return map[string]any{
		"input_tokens":                in,
		"cache_creation_input_tokens": u.CacheWriteTokens,
		"cache_read_input_tokens":     u.CacheReadTokens,
		"output_tokens":               output,
	}
}

// signature is the opaque signature of a reply's thinking block. A client
// must send it back unchanged with the block.
func signature(a *answer) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "llmtest thinking signature %d", a.req.Index))
}

func anthropicID(a *answer) string { return fmt.Sprintf("msg_llmtest%d", a.req.Index) }

// message returns the message object with the given content, stop reason
// and usage.
func anthropicMessage(a *answer, content []any, stop any, usage map[string]any) map[string]any {
	return map[string]any{
		"id": anthropicID(a), "type": "message", "role": "assistant", "model": a.model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
	}
}

func (anthropicProtocol) body(a *answer) any {
	content := []any{}
	if a.reasoning != "" {
		content = append(content, map[string]any{"type": "thinking", "thinking": a.reasoning, "signature": signature(a)})
	}
	if a.text != "" {
		content = append(content, map[string]any{"type": "text", "text": a.text})
	}
	for _, c := range a.calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": argsObject(c.Arguments)})
	}
	return anthropicMessage(a, content, anthropicStopReason(a.finish), anthropicUsage(a.usage, a.usage.OutputTokens))
}

// stream sends message_start (with the input usage), a ping, one block per
// thinking (thinking_delta, then signature_delta), text (text_delta) and
// tool call (input_json_delta fragments; one empty fragment for a call
// without arguments, as Anthropic sends it), then message_delta with the
// stop_reason and cumulative usage, and message_stop. An in-stream error
// is an "event: error" after the content, with no message_stop.
func (anthropicProtocol) stream(sw *sseWriter, a *answer) {
	send := func(typ string, fields map[string]any) {
		fields["type"] = typ
		sw.event(typ, fields)
	}
	send("message_start", map[string]any{"message": anthropicMessage(a, []any{}, nil, anthropicUsage(a.usage, 1))})
	send("ping", map[string]any{})
	index := 0
	block := func(start map[string]any, deltas []map[string]any) {
		send("content_block_start", map[string]any{"index": index, "content_block": start})
		for _, d := range deltas {
			send("content_block_delta", map[string]any{"index": index, "delta": d})
		}
		send("content_block_stop", map[string]any{"index": index})
		index++
	}
	if a.reasoning != "" {
		var deltas []map[string]any
		for _, s := range chunks(a.reasoning, a.chunk) {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": s})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": signature(a)})
		block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, deltas)
	}
	if a.text != "" {
		var deltas []map[string]any
		for _, s := range chunks(a.text, a.chunk) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": s})
		}
		block(map[string]any{"type": "text", "text": ""}, deltas)
	}
	for _, c := range a.calls {
		args := c.Arguments
		if args == "{}" {
			args = ""
		}
		deltas := []map[string]any{{"type": "input_json_delta", "partial_json": ""}}
		if args != "" {
			deltas = deltas[:0]
			for _, s := range chunks(args, a.chunk) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": s})
			}
		}
		block(map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}, deltas)
	}
	if a.streamErr != nil {
		send("error", map[string]any{"error": anthropicError(0, *a.streamErr)})
		return
	}
	send("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": anthropicStopReason(a.finish), "stop_sequence": nil},
		"usage": anthropicUsage(a.usage, a.usage.OutputTokens),
	})
	send("message_stop", map[string]any{})
}
