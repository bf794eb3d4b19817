package llmtest

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
)

// responsesProtocol writes OpenAI Responses replies: a response object
// whose output lists a reasoning item, a message item and function_call
// items, or the stream of semantic events that builds it.
type responsesProtocol struct{}

func (responsesProtocol) requestIDHeader() string { return "x-request-id" }

func (responsesProtocol) errorBody(status int, e ErrorReply, _ string) any {
	return openAIErrorBody(status, e)
}

// responsesStatus maps a finish reason to the response status and its
// incomplete_details: running out of tokens or being filtered leaves a
// response "incomplete", tool calls and a normal stop "completed".
func responsesStatus(f llm.FinishReason) (string, any) {
	switch f {
	case llm.FinishStop, llm.FinishToolCalls:
		return "completed", nil
	case llm.FinishLength:
		return "incomplete", map[string]any{"reason": "max_output_tokens"}
	case llm.FinishContentFilter:
		return "incomplete", map[string]any{"reason": "content_filter"}
	}
	return string(f), nil
}

// itemStatus is the status of the message item in a response with the
// given status: a cut-off response leaves its message incomplete too.
func itemStatus(responseStatus string) string {
	if responseStatus == "incomplete" {
		return responseStatus
	}
	return "completed"
}

func responsesUsage(u llm.Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.InputTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheReadTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens":          total(u),
	}
}

// responseObject returns the response object with the given status,
// output items, usage and error.
func responseObject(a *answer, status string, details any, output []any, usage, errObj any) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("resp_llmtest%d", a.req.Index), "object": "response", "created_at": created,
		"status": status, "error": errObj, "incomplete_details": details, "instructions": nil,
		"model": a.model, "output": output, "parallel_tool_calls": true, "tool_choice": "auto",
		"tools": []any{}, "usage": usage,
	}
}

func reasoningItem(a *answer, summary []any) map[string]any {
	item := map[string]any{"id": fmt.Sprintf("rs_llmtest%d", a.req.Index), "type": "reasoning", "summary": summary}
	if a.req.encrypted {
		item["encrypted_content"] = fmt.Sprintf("llmtest-encrypted-reasoning-%d", a.req.Index)
	}
	return item
}

func textPart(text string) map[string]any {
	return map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": text}
}

func messageItem(a *answer, status string, content []any) map[string]any {
	return map[string]any{"id": fmt.Sprintf("msg_llmtest%d", a.req.Index), "type": "message", "status": status, "role": "assistant", "content": content}
}

func callItem(a *answer, i int, status, args string) map[string]any {
	c := a.calls[i]
	return map[string]any{"id": fmt.Sprintf("fc_llmtest%d_%d", a.req.Index, i), "type": "function_call", "status": status, "arguments": args, "call_id": c.ID, "name": c.Name}
}

// output returns the finished output items.
func (responsesProtocol) output(a *answer, status string) []any {
	var out []any
	if a.reasoning != "" {
		out = append(out, reasoningItem(a, []any{map[string]any{"type": "summary_text", "text": a.reasoning}}))
	}
	if a.text != "" {
		out = append(out, messageItem(a, itemStatus(status), []any{textPart(a.text)}))
	}
	for i, c := range a.calls {
		out = append(out, callItem(a, i, "completed", c.Arguments))
	}
	return out
}

func (p responsesProtocol) body(a *answer) any {
	status, details := responsesStatus(a.finish)
	return responseObject(a, status, details, p.output(a, status), responsesUsage(a.usage), nil)
}

// stream sends response.created and response.in_progress; for each output
// item output_item.added, its deltas and *.done events, output_item.done;
// and ends with response.completed (or response.incomplete) carrying the
// whole response and its usage. An in-stream error is an "error" event
// followed by response.failed. Every event carries a sequence_number.
func (p responsesProtocol) stream(sw *sseWriter, a *answer) {
	seq := 0
	send := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		sw.event(typ, fields)
	}
	status, details := responsesStatus(a.finish)
	send("response.created", map[string]any{"response": responseObject(a, "in_progress", nil, []any{}, nil, nil)})
	send("response.in_progress", map[string]any{"response": responseObject(a, "in_progress", nil, []any{}, nil, nil)})
	out := []any{}
	if a.reasoning != "" {
		n, id := len(out), fmt.Sprintf("rs_llmtest%d", a.req.Index)
		part := map[string]any{"type": "summary_text", "text": a.reasoning}
		send("response.output_item.added", map[string]any{"output_index": n, "item": reasoningItem(a, []any{})})
		send("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": n, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
		for _, s := range chunks(a.reasoning, a.chunk) {
			send("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": n, "summary_index": 0, "delta": s})
		}
		send("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": n, "summary_index": 0, "text": a.reasoning})
		send("response.reasoning_summary_part.done", map[string]any{"item_id": id, "output_index": n, "summary_index": 0, "part": part})
		item := reasoningItem(a, []any{part})
		send("response.output_item.done", map[string]any{"output_index": n, "item": item})
		out = append(out, item)
	}
	if a.text != "" {
		n, id := len(out), fmt.Sprintf("msg_llmtest%d", a.req.Index)
		send("response.output_item.added", map[string]any{"output_index": n, "item": messageItem(a, "in_progress", []any{})})
		send("response.content_part.added", map[string]any{"item_id": id, "output_index": n, "content_index": 0, "part": textPart("")})
		for _, s := range chunks(a.text, a.chunk) {
			send("response.output_text.delta", map[string]any{"item_id": id, "output_index": n, "content_index": 0, "delta": s, "logprobs": []any{}})
		}
		send("response.output_text.done", map[string]any{"item_id": id, "output_index": n, "content_index": 0, "text": a.text, "logprobs": []any{}})
		send("response.content_part.done", map[string]any{"item_id": id, "output_index": n, "content_index": 0, "part": textPart(a.text)})
		item := messageItem(a, itemStatus(status), []any{textPart(a.text)})
		send("response.output_item.done", map[string]any{"output_index": n, "item": item})
		out = append(out, item)
	}
	for i, c := range a.calls {
		n, id := len(out), fmt.Sprintf("fc_llmtest%d_%d", a.req.Index, i)
		send("response.output_item.added", map[string]any{"output_index": n, "item": callItem(a, i, "in_progress", "")})
		for _, s := range chunks(c.Arguments, a.chunk) {
			send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": n, "delta": s})
		}
		send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": n, "arguments": c.Arguments})
		item := callItem(a, i, "completed", c.Arguments)
		send("response.output_item.done", map[string]any{"output_index": n, "item": item})
		out = append(out, item)
	}
	if a.streamErr != nil {
		// OpenAI documents the error event with code, message and param at
		// the top level, while recorded streams nest them in "error";
		// both are sent so that clients reading either form work.
		e := openAIError(0, *a.streamErr)
		code := e.Type
		if e.Code != nil {
			code = *e.Code
		}
		send("error", map[string]any{"code": code, "message": e.Message, "param": nil, "error": e})
		failure := map[string]any{"code": code, "message": e.Message}
		send("response.failed", map[string]any{"response": responseObject(a, "failed", nil, out, nil, failure)})
		return
	}
	send("response."+status, map[string]any{"response": responseObject(a, status, details, out, responsesUsage(a.usage), nil)})
}
