package llmtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

func TestResponsesJSON(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{
		Text: "Let me check.", Reasoning: "user wants weather",
		ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"city":"Oslo"}`}},
		Usage:     &llm.Usage{InputTokens: 20, OutputTokens: 8, CacheReadTokens: 5, ReasoningTokens: 2},
	})
	v := decodeJSON(t, send(t, srv, Responses, `{"model":"gpt-5","input":"weather in Oslo?","include":["reasoning.encrypted_content"]}`))
	if str(v, "object") != "response" || str(v, "status") != "completed" || str(v, "model") != "gpt-5" {
		t.Errorf("object %q status %q model %q", str(v, "object"), str(v, "status"), str(v, "model"))
	}
	var types []string
	for _, it := range get(v, "output").([]any) {
		types = append(types, str(it, "type"))
	}
	if want := []string{"reasoning", "message", "function_call"}; !slices.Equal(types, want) {
		t.Fatalf("output item types = %v, want %v", types, want)
	}
	if str(v, "output", 0, "summary", 0, "text") != "user wants weather" || str(v, "output", 0, "encrypted_content") == "" {
		t.Errorf("reasoning item = %v, want the summary and encrypted_content (it was asked for)", get(v, "output", 0))
	}
	if str(v, "output", 1, "role") != "assistant" || str(v, "output", 1, "content", 0, "type") != "output_text" || str(v, "output", 1, "content", 0, "text") != "Let me check." {
		t.Errorf("message item = %v", get(v, "output", 1))
	}
	call := get(v, "output", 2)
	if !strings.HasPrefix(str(call, "call_id"), "call_") || str(call, "id") == str(call, "call_id") || str(call, "name") != "weather" || str(call, "arguments") != `{"city":"Oslo"}` {
		t.Errorf("function_call item = %v, want a call_id distinct from the item id", call)
	}
	u := get(v, "usage")
	if num(u, "input_tokens") != 20 || num(u, "output_tokens") != 8 || num(u, "total_tokens") != 28 ||
		num(u, "input_tokens_details", "cached_tokens") != 5 || num(u, "output_tokens_details", "reasoning_tokens") != 2 {
		t.Errorf("usage = %v", u)
	}
}

func TestResponsesJSONWithoutEncryptedReasoning(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{Reasoning: "r", Text: "t"})
	v := decodeJSON(t, send(t, srv, Responses, `{"model":"m","input":"q"}`))
	if has(v, "encrypted_content", "output", 0) {
		t.Error("encrypted_content sent although include did not ask for it")
	}
}

func TestResponsesStream(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{
		Text: "The answer is forty-two.", Reasoning: "compute it", ChunkSize: 6,
		ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "calc", Arguments: `{"expr":"6*7"}`}},
	})
	evs := readEvents(t, send(t, srv, Responses, `{"model":"m","stream":true,"input":[{"role":"user","content":"q"}]}`))
	var (
		names                 []string
		text, reasoning, args strings.Builder
	)
	for i, e := range evs {
		if e.Name != str(e.Data, "type") {
			t.Errorf("event %d: name %q but data type %q", i, e.Name, str(e.Data, "type"))
		}
		if !has(e.Data, "sequence_number") || num(e.Data, "sequence_number") != i {
			t.Errorf("event %d (%s): sequence_number %v", i, e.Name, get(e.Data, "sequence_number"))
		}
		switch e.Name {
		case "response.output_text.delta":
			text.WriteString(str(e.Data, "delta"))
		case "response.reasoning_summary_text.delta":
			reasoning.WriteString(str(e.Data, "delta"))
		case "response.function_call_arguments.delta":
			args.WriteString(str(e.Data, "delta"))
		}
		if !strings.HasSuffix(e.Name, ".delta") {
			names = append(names, e.Name)
		}
	}
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.done", "response.output_item.done",
		"response.completed",
	}
	if !slices.Equal(names, want) {
		t.Errorf("events (without deltas) =\n%v\nwant\n%v", names, want)
	}
	if text.String() != "The answer is forty-two." || reasoning.String() != "compute it" || args.String() != `{"expr":"6*7"}` {
		t.Errorf("deltas: text %q reasoning %q args %q", text.String(), reasoning.String(), args.String())
	}
	if str(evs[0].Data, "response", "status") != "in_progress" {
		t.Errorf("response.created status = %q", str(evs[0].Data, "response", "status"))
	}
	added := evs[slices.IndexFunc(evs, func(e event) bool { return str(e.Data, "item", "type") == "function_call" })]
	if str(added.Data, "item", "call_id") != "call_1" || str(added.Data, "item", "name") != "calc" || num(added.Data, "output_index") != 2 {
		t.Errorf("function_call added = %v", added.Data)
	}
	done := evs[len(evs)-1].Data
	if str(done, "response", "status") != "completed" || len(get(done, "response", "output").([]any)) != 3 || num(done, "response", "usage", "output_tokens") == 0 {
		t.Errorf("response.completed = %v", get(done, "response"))
	}
}

func TestResponsesStreamIncomplete(t *testing.T) {
	srv := New(t)
	srv.Enqueue(Reply{Text: "cut sh", FinishReason: llm.FinishLength})
	evs := readEvents(t, send(t, srv, Responses, `{"model":"m","stream":true,"input":"q"}`))
	last := evs[len(evs)-1]
	if last.Name != "response.incomplete" || str(last.Data, "response", "status") != "incomplete" ||
		str(last.Data, "response", "incomplete_details", "reason") != "max_output_tokens" {
		t.Errorf("last event %q = %v", last.Name, last.Data)
	}
}
