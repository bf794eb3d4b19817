package openai

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// responsesCase is one reply, recorded in testdata/responses or given
// inline, and what the adapter must make of it.
type responsesCase struct {
	name     string
	file     string // under testdata/responses
	body     string // inline SSE body instead of a file
	noStream bool

	text, reasoning string
	calls           []llm.ToolCall
	blocks          []llm.ReasoningBlock
	raw             string
	finish          llm.FinishReason
	usage           llm.Usage
	id, model       string

	errKind  llm.ErrorKind
	errCode  string
	errType  string
	errMsg   string
	inStream bool
}

var responsesCases = []responsesCase{
	{
		name: "text", file: "stream-text.sse",
		text: "Hello, world! 你好", raw: "completed", finish: llm.FinishStop,
		usage: llm.Usage{InputTokens: 1200, OutputTokens: 9, CacheReadTokens: 1024, TotalTokens: 1209},
		id:    "resp_text_01", model: "gpt-5-mini-2025-08-07",
	},
	{
		name: "reasoning summary and encrypted item", file: "stream-reasoning.sse",
		text:      "2 + 2 = 4.",
		reasoning: "**Checking the sum**\n\nTwo plus two is four.**Answering**\n\nState it plainly.",
		blocks: []llm.ReasoningBlock{{Type: "reasoning", ID: "rs_reason_01",
			Text: "**Checking the sum**\n\nTwo plus two is four.**Answering**\n\nState it plainly.", Data: "gAAAA-encrypted-final=="}},
		raw: "completed", finish: llm.FinishStop,
		usage: llm.Usage{InputTokens: 40, OutputTokens: 180, ReasoningTokens: 160, TotalTokens: 220},
		id:    "resp_reason_01", model: "o4-mini-2025-04-16",
	},
	{
		name: "parallel calls interleaved", file: "stream-parallel-calls.sse",
		reasoning: "**Two lookups**\n\nCall the weather tool twice.",
		blocks: []llm.ReasoningBlock{{Type: "reasoning", ID: "rs_par_01",
			Text: "**Two lookups**\n\nCall the weather tool twice.", Data: "enc-par-final"}},
		calls: []llm.ToolCall{
			{ID: "call_paris", Name: "get_weather", Arguments: `{"city":"Paris","unit":"c"}`},
			{ID: "call_tokyo", Name: "get_weather", Arguments: `{"city":"Tokyo","unit":"c"}`},
		},
		raw: "completed", finish: llm.FinishToolCalls,
		usage: llm.Usage{InputTokens: 320, OutputTokens: 75, CacheReadTokens: 256, ReasoningTokens: 32, TotalTokens: 395},
		id:    "resp_parallel_01", model: "gpt-5-2025-08-07",
	},
	{
		// The deltas repeat a fragment and the completed response has no
		// output: only the .done events give the right arguments.
		name: "call arguments in deltas, done authoritative", file: "stream-call-args-deltas.sse",
		calls: []llm.ToolCall{{ID: "call_read", Name: "read_file", Arguments: `{"path":"/etc/hosts","lines":[1,2,3]}`}},
		raw:   "completed", finish: llm.FinishToolCalls,
		usage: llm.Usage{InputTokens: 90, OutputTokens: 30, TotalTokens: 120},
		id:    "resp_args_01", model: "gpt-4.1-2025-04-14",
	},
	{
		name: "in-stream error then response.failed", file: "stream-error.sse",
		text: "Partial answ", raw: "failed", finish: llm.FinishError,
		id: "resp_fail_01", model: "gpt-5-2025-08-07",
		errKind: llm.ErrServer, errCode: "server_error", inStream: true,
		errMsg: "The server had an error while processing your request. Sorry about that!",
	},
	{
		name: "incomplete at max_output_tokens", file: "stream-incomplete.sse",
		text: "Once upon a time there was a", raw: "incomplete", finish: llm.FinishLength,
		usage: llm.Usage{InputTokens: 20, OutputTokens: 16, TotalTokens: 36},
		id:    "resp_incomplete_01", model: "gpt-5-nano-2025-08-07",
	},
	{
		name: "stream cut before completion", file: "stream-cut.sse",
		text:  "Let me check.",
		calls: []llm.ToolCall{{ID: "call_cut", Name: "search", Arguments: `{"q":"go i`}},
		raw:   "", finish: llm.FinishError,
		id: "resp_cut_01", model: "gpt-5-2025-08-07",
		errKind: llm.ErrNetwork, errMsg: "stream ended before the response completed",
	},
	{
		name: "undecodable event", file: "stream-undecodable.sse",
		finish: llm.FinishError, id: "resp_bad_01", model: "gpt-5-2025-08-07",
		errKind: llm.ErrInvalidResponse,
	},
	{
		name: "error event in the nested form, then the body ends",
		body: "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_n\",\"model\":\"m-1\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\",\"message\":\"Your input exceeds the context window of this model.\",\"param\":\"input\"}}\n\n",
		raw: "failed", finish: llm.FinishError, id: "resp_n", model: "m-1",
		errKind: llm.ErrContextOverflow, errType: "invalid_request_error", errCode: "context_length_exceeded",
		errMsg: "Your input exceeds the context window of this model.", inStream: true,
	},
	{
		// A server that sends whole items and no deltas: the adapter
		// still yields text and call fragments, and the completed
		// response without output falls back to those items.
		name: "items without deltas",
		body: "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"Checking.\"}]}}\n\n" +
			"data: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"type\":\"function_call\",\"id\":\"fc1\",\"call_id\":\"call_1\",\"name\":\"ls\",\"arguments\":{\"dir\":\"/tmp\"}}}\n\n" +
			"data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_w\",\"model\":\"local\",\"status\":\"completed\",\"output\":[]}}\n\n",
		text:  "Checking.",
		calls: []llm.ToolCall{{ID: "call_1", Name: "ls", Arguments: `{"dir":"/tmp"}`}},
		raw:   "completed", finish: llm.FinishToolCalls, id: "resp_w", model: "local",
	},
	{
		// A server that names items by neither id nor index: fragments
		// belong to the latest item of their kind.
		name: "deltas without item ids or indexes",
		body: "data: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\",\"call_id\":\"call_a\",\"name\":\"grep\"}}\n\n" +
			"data: {\"type\":\"response.function_call_arguments.delta\",\"delta\":\"{\\\"re\\\":\"}\n\n" +
			"data: {\"type\":\"response.function_call_arguments.delta\",\"delta\":\"\\\"TODO\\\"}\"}\n\n" +
			"data: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\",\"call_id\":\"call_b\",\"name\":\"ls\"}}\n\n" +
			"data: {\"type\":\"response.output_text.delta\",\"delta\":\"Searching.\"}\n\n" +
			"data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_s\",\"model\":\"local\",\"status\":\"completed\"}}\n\n",
		text:  "Searching.",
		calls: []llm.ToolCall{{ID: "call_a", Name: "grep", Arguments: `{"re":"TODO"}`}, {ID: "call_b", Name: "ls", Arguments: "{}"}},
		raw:   "completed", finish: llm.FinishToolCalls, id: "resp_s", model: "local",
	},
	{
		// Items hermes does not read, and content in shapes it does not
		// expect, must not make the reply undecodable.
		name: "unknown item kinds and odd content shapes",
		body: "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"web_search_call\",\"id\":\"ws_1\",\"action\":{\"type\":\"search\",\"query\":\"go\"},\"content\":{\"odd\":true},\"summary\":7}}\n\n" +
			"data: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"type\":\"message\",\"id\":\"m_1\",\"role\":\"assistant\",\"content\":\"Found it.\"}}\n\n" +
			"data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_u\",\"model\":\"local\",\"status\":\"completed\",\"error\":null,\"output\":[" +
			"{\"type\":\"web_search_call\",\"id\":\"ws_1\",\"content\":[1,{\"type\":\"x\"}]}," +
			"{\"type\":\"message\",\"id\":\"m_1\",\"content\":[{\"type\":\"output_text\",\"text\":\"Found it.\",\"annotations\":[{\"type\":\"url_citation\"}]}]}]}}\n\n",
		text: "Found it.", raw: "completed", finish: llm.FinishStop, id: "resp_u", model: "local",
	},
	{
		name: "non-stream reasoning, text and call", file: "nonstream-reasoning-call.json", noStream: true,
		text: "Reading it now.", reasoning: "**Plan**\n\nRead the file first.",
		blocks: []llm.ReasoningBlock{{Type: "reasoning", ID: "rs_ns_01", Text: "**Plan**\n\nRead the file first.", Data: "gAAAA-nonstream-enc"}},
		calls:  []llm.ToolCall{{ID: "call_ns_read", Name: "read_file", Arguments: `{"path":"README.md"}`}},
		raw:    "completed", finish: llm.FinishToolCalls,
		usage: llm.Usage{InputTokens: 500, OutputTokens: 120, CacheReadTokens: 384, ReasoningTokens: 64, TotalTokens: 620},
		id:    "resp_ns_01", model: "o3-2025-04-16",
	},
	{
		// A server that ignores "stream": true and answers with JSON.
		name: "JSON reply to a streaming request", file: "nonstream-reasoning-call.json",
		text: "Reading it now.", reasoning: "**Plan**\n\nRead the file first.",
		blocks: []llm.ReasoningBlock{{Type: "reasoning", ID: "rs_ns_01", Text: "**Plan**\n\nRead the file first.", Data: "gAAAA-nonstream-enc"}},
		calls:  []llm.ToolCall{{ID: "call_ns_read", Name: "read_file", Arguments: `{"path":"README.md"}`}},
		raw:    "completed", finish: llm.FinishToolCalls,
		usage: llm.Usage{InputTokens: 500, OutputTokens: 120, CacheReadTokens: 384, ReasoningTokens: 64, TotalTokens: 620},
		id:    "resp_ns_01", model: "o3-2025-04-16",
	},
	{
		name: "non-stream incomplete by content filter", file: "nonstream-incomplete-filter.json", noStream: true,
		text: "I can't help with that.", raw: "incomplete", finish: llm.FinishContentFilter,
		usage: llm.Usage{InputTokens: 30, OutputTokens: 7, TotalTokens: 37},
		id:    "resp_ns_filter_01", model: "gpt-4o-2024-08-06",
	},
	{
		name: "non-stream failed", file: "nonstream-failed.json", noStream: true,
		raw: "failed", finish: llm.FinishError, id: "resp_ns_failed_01", model: "gpt-5-2025-08-07",
		errKind: llm.ErrRateLimited, errCode: "rate_limit_exceeded",
		errMsg: "Rate limit reached for gpt-5 in organization org-x on tokens per min (TPM).",
	},
}

// TestResponsesParse replays each case through an httptest server and
// checks the events and the final (or partial) response.
func TestResponsesParse(t *testing.T) {
	for _, tc := range responsesCases {
		t.Run(tc.name, func(t *testing.T) {
			body, ctype := []byte(tc.body), "text/event-stream"
			if tc.file != "" {
				var err error
				if body, err = os.ReadFile(filepath.Join("testdata", "responses", tc.file)); err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(tc.file, ".json") {
					ctype = "application/json"
				}
			}
			srv := responsesNewServer(t, ctype, body)
			evs := responsesCollect(t, srv.provider(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, NoStream: tc.noStream})
			if got := srv.lastBody(t)["stream"]; got != !tc.noStream {
				t.Errorf("request stream = %v, want %v", got, !tc.noStream)
			}
			last := evs[len(evs)-1]
			resp := last.Response
			if resp == nil {
				t.Fatalf("final event %v carries no response (err %v)", last.Kind, last.Err)
			}
			responsesCheckError(t, tc, last)
			responsesCheckDeltas(t, evs, resp)
			responsesCheckReply(t, tc, resp)
			var usage *llm.Usage
			for _, ev := range evs {
				if ev.Kind == llm.EventUsage {
					usage = &ev.Usage
				}
			}
			if tc.usage != (llm.Usage{}) && (usage == nil || *usage != tc.usage) {
				t.Errorf("usage event = %+v, want %+v", usage, tc.usage)
			}
		})
	}
}

// responsesCheckError checks how the stream ended against the case.
func responsesCheckError(t *testing.T, tc responsesCase, last llm.Event) {
	t.Helper()
	if tc.errKind == "" {
		if last.Kind != llm.EventDone {
			t.Fatalf("final event %v: %v", last.Kind, last.Err)
		}
		return
	}
	if last.Kind != llm.EventError {
		t.Fatalf("final event %v, want an error of kind %s", last.Kind, tc.errKind)
	}
	var e *llm.Error
	if !errors.As(last.Err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", last.Err, last.Err)
	}
	if e.Kind != tc.errKind || e.Provider != "test" || e.InStream != tc.inStream {
		t.Errorf("error kind %q provider %q in-stream %v, want %q %q %v", e.Kind, e.Provider, e.InStream, tc.errKind, "test", tc.inStream)
	}
	if (tc.errCode != "" && e.Code != tc.errCode) || (tc.errType != "" && e.Type != tc.errType) || (tc.errMsg != "" && e.Message != tc.errMsg) {
		t.Errorf("error type %q code %q message %q, want %q %q %q", e.Type, e.Code, e.Message, tc.errType, tc.errCode, tc.errMsg)
	}
}

// responsesCheckReply checks the response against the case.
func responsesCheckReply(t *testing.T, tc responsesCase, resp *llm.Response) {
	t.Helper()
	if resp.Text() != tc.text {
		t.Errorf("text = %q, want %q", resp.Text(), tc.text)
	}
	if resp.Message.Reasoning != tc.reasoning {
		t.Errorf("reasoning = %q, want %q", resp.Message.Reasoning, tc.reasoning)
	}
	if resp.Message.Role != llm.RoleAssistant {
		t.Errorf("role = %q", resp.Message.Role)
	}
	if !reflect.DeepEqual(resp.Message.ReasoningBlocks, tc.blocks) {
		t.Errorf("reasoning blocks = %+v, want %+v", resp.Message.ReasoningBlocks, tc.blocks)
	}
	if len(resp.Message.ToolCalls) != len(tc.calls) {
		t.Fatalf("tool calls = %+v, want %+v", resp.Message.ToolCalls, tc.calls)
	}
	for i, want := range tc.calls {
		got := resp.Message.ToolCalls[i]
		if got.ID != want.ID || got.Name != want.Name || !llmtest.SameJSON(got.Arguments, want.Arguments) {
			t.Errorf("call %d = %+v, want %+v", i, got, want)
		}
	}
	if resp.RawFinishReason != tc.raw || resp.FinishReason != tc.finish {
		t.Errorf("finish = %q (raw %q), want %q (raw %q)", resp.FinishReason, resp.RawFinishReason, tc.finish, tc.raw)
	}
	if resp.Usage != tc.usage {
		t.Errorf("usage = %+v, want %+v", resp.Usage, tc.usage)
	}
	if resp.ID != tc.id || resp.Model != tc.model || resp.Provider != "test" {
		t.Errorf("id %q model %q provider %q, want %q %q %q", resp.ID, resp.Model, resp.Provider, tc.id, tc.model, "test")
	}
}
