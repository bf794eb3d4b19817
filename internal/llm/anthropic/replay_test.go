package anthropic

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

type replayWant struct {
	text, reasoning string
	blocks          []llm.ReasoningBlock
	calls           []llm.ToolCall
	finish          llm.FinishReason
	raw             string
	usage           llm.Usage
	id, model       string
	// errKind is the kind the stream must end with; "" means success.
	errKind  llm.ErrorKind
	inStream bool
	errText  string
}

func TestReplay(t *testing.T) {
	tests := []struct {
		name     string
		file     string // under testdata
		body     string // used when file is empty
		status   int
		noStream bool
		want     replayWant
	}{
		{name: "stream text", file: "stream_text.sse", want: replayWant{
			text: "Hello, wörld!\nSecond line.", finish: llm.FinishStop, raw: "end_turn",
			// message_delta carries only output_tokens: input is kept.
			usage: llm.Usage{InputTokens: 25, OutputTokens: 12},
			id:    "msg_01TextStreamA1", model: "claude-sonnet-4-5-20250929",
		}},
		{name: "stream thinking with signature", file: "stream_thinking.sse", want: replayWant{
			text: "27 × 453 = 12,231", reasoning: "The user asks for 27 * 453. 27*453 = 12231.",
			blocks: []llm.ReasoningBlock{{Type: "thinking", Text: "The user asks for 27 * 453. 27*453 = 12231.",
				Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}},
			finish: llm.FinishStop, raw: "end_turn", usage: llm.Usage{InputTokens: 40, OutputTokens: 61},
			id: "msg_01ThinkStreamB2", model: "claude-sonnet-4-5-20250929",
		}},
		{name: "stream redacted thinking", file: "stream_redacted_thinking.sse", want: replayWant{
			text: "I can't share that.", reasoning: "Visible part.",
			blocks: []llm.ReasoningBlock{
				{Type: "redacted_thinking", Data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"},
				{Type: "thinking", Text: "Visible part.", Signature: "sig-visible-1"},
			},
			finish: llm.FinishStop, raw: "end_turn", usage: llm.Usage{InputTokens: 90, OutputTokens: 150},
			id: "msg_01RedactC3", model: "claude-3-7-sonnet-20250219",
		}},
		{name: "stream parallel tool use in pieces", file: "stream_parallel_tool_use.sse", want: replayWant{
			text: "Checking both cities.",
			calls: []llm.ToolCall{
				{ID: "toolu_01WeatherParis", Name: "get_weather", Arguments: `{"location": "Paris", "unit": "c"}`},
				{ID: "toolu_01WeatherTokyo", Name: "get_weather", Arguments: `{"location": "Tokyo"}`},
			},
			finish: llm.FinishToolCalls, raw: "tool_use", usage: llm.Usage{InputTokens: 472, OutputTokens: 118},
			id: "msg_01ParallelD4", model: "claude-haiku-4-5-20251001",
		}},
		{name: "stream tool use with empty input", file: "stream_tool_use_empty_input.sse", want: replayWant{
			calls:  []llm.ToolCall{{ID: "toolu_01NoArgs", Name: "current_time", Arguments: "{}"}},
			finish: llm.FinishToolCalls, raw: "tool_use", usage: llm.Usage{InputTokens: 300, OutputTokens: 30},
			id: "msg_01EmptyInputE5", model: "claude-haiku-4-5-20251001",
		}},
		{name: "stream cache usage", file: "stream_cache_usage.sse", want: replayWant{
			text: "Cached.", finish: llm.FinishLength, raw: "max_tokens",
			usage: llm.Usage{InputTokens: 21 + 188 + 5120, OutputTokens: 9, CacheReadTokens: 5120, CacheWriteTokens: 188},
			id:    "msg_01CacheH8", model: "claude-sonnet-4-5-20250929",
		}},
		{name: "stream overloaded error mid-stream", file: "stream_error_overloaded.sse", want: replayWant{
			text: "Partial ans", finish: llm.FinishError, usage: llm.Usage{InputTokens: 12, OutputTokens: 1},
			id: "msg_01OverloadF6", model: "claude-opus-4-1-20250805",
			errKind: llm.ErrOverloaded, inStream: true, errText: "Overloaded",
		}},
		{name: "stream cut before message_stop", file: "stream_cut.sse", want: replayWant{
			text:   "Let me look",
			calls:  []llm.ToolCall{{ID: "toolu_01Cut", Name: "read_file", Arguments: `{"path": "/et`}},
			finish: llm.FinishError, usage: llm.Usage{InputTokens: 50, OutputTokens: 1},
			id: "msg_01CutG7", model: "claude-sonnet-4-5-20250929",
			errKind: llm.ErrNetwork, errText: errStreamCut,
		}},
		{name: "stream input count only in message_delta", body: "event: message_start\n" +
			`data: {"type":"message_start","message":{"id":"msg_gw","model":"gw-model","usage":{"input_tokens":0,"output_tokens":0}}}` + "\n\n" +
			"event: message_delta\n" +
			`data: {"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"input_tokens":77,"output_tokens":5}}` + "\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
			want: replayWant{finish: llm.FinishStop, raw: "pause_turn", usage: llm.Usage{InputTokens: 77, OutputTokens: 5}, id: "msg_gw", model: "gw-model"}},
		{name: "stream without event lines", body: `data: {"type":"message_start","message":{"id":"msg_noev","model":"m"}}` + "\n\n" +
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"no start"}}` + "\n\n" +
			`data: {"type":"message_delta","delta":{"stop_reason":"refusal"}}` + "\n\n" +
			`data: {"type":"message_stop"}` + "\n\n",
			want: replayWant{text: "no start", finish: llm.FinishContentFilter, raw: "refusal", id: "msg_noev", model: "m"}},
		{name: "stream deltas in another key order, with escapes", body: `data: {"type":"message_start","message":{"id":"msg_ord","model":"m"}}` + "\n\n" +
			`data: {"index":0,"delta":{"text":"caf\u00e9 ","type":"text_delta"},"type":"content_block_delta"}` + "\n\n" +
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d\ude00"}}` + "\n\n" +
			`data: {"type":"message_stop"}` + "\n\n",
			want: replayWant{text: "café 😀", finish: llm.FinishStop, id: "msg_ord", model: "m"}},
		{name: "stream undecodable event", body: "event: message_start\n" +
			`data: {"type":"message_start","message":{"id":"msg_bad","model":"m"}}` + "\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_\n\n",
			want: replayWant{finish: llm.FinishError, id: "msg_bad", model: "m", errKind: llm.ErrInvalidResponse, errText: "undecodable content_block_delta event"}},
		{name: "non-stream text", file: "message_text.json", noStream: true, want: replayWant{
			text: "Paris is the capital of France.", finish: llm.FinishStop, raw: "end_turn",
			usage: llm.Usage{InputTokens: 14, OutputTokens: 9}, id: "msg_01NonStreamI9", model: "claude-sonnet-4-5-20250929",
		}},
		{name: "non-stream thinking, redacted thinking and tool use", file: "message_thinking_tool_use.json", noStream: true, want: replayWant{
			text: "Looking that up.", reasoning: "I need the weather in two places.",
			blocks: []llm.ReasoningBlock{
				{Type: "thinking", Text: "I need the weather in two places.", Signature: "ErUBCkYIBRgCIkDsig"},
				{Type: "redacted_thinking", Data: "EmwKAhgBEgyRedactedOpaque"},
			},
			calls: []llm.ToolCall{
				{ID: "toolu_01Berlin", Name: "get_weather", Arguments: `{"location": "Berlin", "days": 3}`},
				{ID: "toolu_01Clock", Name: "current_time", Arguments: "{}"},
			},
			finish: llm.FinishToolCalls, raw: "tool_use", usage: llm.Usage{InputTokens: 600, OutputTokens: 210},
			id: "msg_01ThinkToolsJ10", model: "claude-sonnet-4-5-20250929",
		}},
		{name: "non-stream cache usage and refusal", file: "message_cache_usage.json", noStream: true, want: replayWant{
			text: "Done.", finish: llm.FinishContentFilter, raw: "refusal",
			usage: llm.Usage{InputTokens: 3 + 1024 + 4096, OutputTokens: 2, CacheReadTokens: 4096, CacheWriteTokens: 1024},
			id:    "msg_01CacheK11", model: "claude-haiku-4-5-20251001",
		}},
		{name: "non-stream undecodable", body: `{"id":"msg_x","content":[`, noStream: true,
			want: replayWant{errKind: llm.ErrInvalidResponse, errText: "not a Message object"}},
		{name: "non-stream error envelope with status 200", body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, noStream: true,
			want: replayWant{errKind: llm.ErrRateLimited, errText: "slow down"}},
		{name: "HTTP 529 overloaded", status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_529"}`,
			want: replayWant{errKind: llm.ErrOverloaded, errText: "Overloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if tt.file != "" {
				body = readTestdata(t, tt.file)
			}
			status := tt.status
			if status == 0 {
				status = 200
			}
			c, _ := serve(t, status, body)
			events, resp, err := collect(t, c, &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, NoStream: tt.noStream})
			w := tt.want
			checkReplayError(t, err, w)
			if w.errKind != "" && w.id == "" {
				return // failed before any reply arrived
			}
			if resp == nil {
				t.Fatal("no response, not even a partial one")
			}
			checkEventsMatch(t, events, resp)
			if resp.Text() != w.text {
				t.Errorf("text = %q, want %q", resp.Text(), w.text)
			}
			if resp.Message.Reasoning != w.reasoning {
				t.Errorf("reasoning = %q, want %q", resp.Message.Reasoning, w.reasoning)
			}
			if !reflect.DeepEqual(resp.Message.ReasoningBlocks, w.blocks) {
				t.Errorf("reasoning blocks = %+v\nwant %+v", resp.Message.ReasoningBlocks, w.blocks)
			}
			if !reflect.DeepEqual(resp.Message.ToolCalls, w.calls) {
				t.Errorf("tool calls = %+v\nwant %+v", resp.Message.ToolCalls, w.calls)
			}
			if resp.FinishReason != w.finish || resp.RawFinishReason != w.raw {
				t.Errorf("finish = %q (raw %q), want %q (raw %q)", resp.FinishReason, resp.RawFinishReason, w.finish, w.raw)
			}
			if resp.Usage != w.usage {
				t.Errorf("usage = %+v, want %+v", resp.Usage, w.usage)
			}
			if resp.ID != w.id || resp.Model != w.model || resp.Provider != "claude" {
				t.Errorf("id, model, provider = %q, %q, %q; want %q, %q, claude", resp.ID, resp.Model, resp.Provider, w.id, w.model)
			}
			if resp.Message.Role != llm.RoleAssistant {
				t.Errorf("role = %q", resp.Message.Role)
			}
		})
	}
}

func checkReplayError(t *testing.T, err error, w replayWant) {
	t.Helper()
	if w.errKind == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want an *llm.Error of kind %s", err, err, w.errKind)
	}
	if e.Kind != w.errKind || e.InStream != w.inStream || e.Provider != "claude" {
		t.Errorf("error kind %q in-stream %v provider %q, want %q %v claude", e.Kind, e.InStream, e.Provider, w.errKind, w.inStream)
	}
	if !strings.Contains(e.Error(), w.errText) {
		t.Errorf("error %q does not mention %q", e.Error(), w.errText)
	}
}

func TestFinishReason(t *testing.T) {
	for raw, want := range map[string]llm.FinishReason{
		"end_turn": llm.FinishStop, "stop_sequence": llm.FinishStop, "pause_turn": llm.FinishStop,
		"tool_use": llm.FinishToolCalls, "max_tokens": llm.FinishLength,
		"model_context_window_exceeded": llm.FinishLength, "refusal": llm.FinishContentFilter,
		"": llm.FinishStop, "something_new": llm.FinishStop,
	} {
		if got := finishReason(raw, false); got != want {
			t.Errorf("finishReason(%q) = %q, want %q", raw, got, want)
		}
	}
	if got := finishReason("", true); got != llm.FinishToolCalls {
		t.Errorf("missing stop reason with tool calls = %q, want tool_calls", got)
	}
}

// FuzzReadStream feeds arbitrary bodies to the stream parser: whatever
// arrives, it must end with exactly one final event and never panic.
func FuzzReadStream(f *testing.F) {
	for _, name := range []string{"stream_text.sse", "stream_thinking.sse", "stream_parallel_tool_use.sse",
		"stream_error_overloaded.sse", "stream_cut.sse", "stream_redacted_thinking.sse"} {
		f.Add([]byte(readTestdata(f, name)))
	}
	c := New(llm.Endpoint{Name: "fuzz"})
	f.Fuzz(func(t *testing.T, body []byte) {
		final := 0
		c.readStream(t.Context(), strings.NewReader(string(body)), newAssembler("fuzz", "m", llm.NewBudget("fuzz", 0)), func(ev llm.Event) bool {
			if final > 0 {
				t.Fatalf("event %v after the final event", ev.Kind)
			}
			if ev.Kind == llm.EventDone || ev.Kind == llm.EventError {
				final++
				if ev.Response == nil {
					t.Fatal("final event without a response")
				}
			}
			return true
		})
		if final != 1 {
			t.Fatalf("%d final events, want 1", final)
		}
	})
}
