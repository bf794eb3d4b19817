package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

func TestChatStreamRecordings(t *testing.T) {
	tests := []struct {
		file string
		want chatWant
	}{
		{"stream-openai-text-include-usage.sse", chatWant{
			text: "Hello, world!", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 1200, OutputTokens: 40, TotalTokens: 1240, CacheReadTokens: 1024, ReasoningTokens: 16},
			id:    "chatcmpl-AOpenAI1", model: "gpt-4o-mini-2024-07-18",
		}},
		{"stream-dashscope-id-once.sse", chatWant{
			calls: []llm.ToolCall{
				{ID: "call_4a1b", Name: "get_weather", Arguments: `{"city":"Hangzhou"}`},
				{ID: "call_9c2d", Name: "get_time", Arguments: `{"tz":"Asia/Shanghai"}`},
			},
			finish: llm.FinishToolCalls, raw: "tool_calls",
			usage: llm.Usage{InputTokens: 310, OutputTokens: 41, TotalTokens: 351, CacheReadTokens: 256},
			id:    "chatcmpl-dashscope-2", model: "qwen3-max",
		}},
		{"stream-gemini-empty-ids.sse", chatWant{
			calls: []llm.ToolCall{
				{Name: "read_file", Arguments: `{"path":"a.txt"}`},
				{Name: "read_file", Arguments: `{"path":"b.txt"}`},
			},
			finish: llm.FinishToolCalls, raw: "tool_calls",
			usage: llm.Usage{InputTokens: 80, OutputTokens: 30, TotalTokens: 190},
			id:    "gemini-stream-3", model: "gemini-2.5-flash",
		}},
		{"stream-mistral-no-index.sse", chatWant{
			calls: []llm.ToolCall{
				{ID: "aB3dE5gH7", Name: "search", Arguments: `{"query":"go iterators"}`},
				{ID: "kL9mN1pQ3", Name: "search", Arguments: `{"query":"range over func"}`},
			},
			finish: llm.FinishToolCalls, raw: "tool_calls",
			usage: llm.Usage{InputTokens: 90, OutputTokens: 40, TotalTokens: 130},
			id:    "0b1c2d3e4f5061728394a5b6c7d8e9f0", model: "mistral-small-latest",
		}},
		{"stream-same-index-two-ids.sse", chatWant{
			calls: []llm.ToolCall{
				{ID: "call_one", Name: "add", Arguments: `{"a":1,"b":2}`},
				{ID: "call_two", Name: "mul", Arguments: `{"a":3,"b":4}`},
			},
			finish: llm.FinishToolCalls, raw: "tool_calls",
			usage: llm.Usage{InputTokens: 50, OutputTokens: 20, TotalTokens: 70},
			id:    "chatcmpl-sameindex-5", model: "llama-3.1-70b",
		}},
		{"stream-kimi-resent.sse", chatWant{
			calls:  []llm.ToolCall{{ID: "functions.lookup:0", Name: "lookup", Arguments: `{"term":"hermes"}`}},
			finish: llm.FinishToolCalls, raw: "",
			usage: llm.Usage{InputTokens: 57, OutputTokens: 17, TotalTokens: 74},
			id:    "gen-1767225600-KimiResent6", model: "moonshotai/kimi-k2",
		}},
		{"stream-arguments-object.sse", chatWant{
			calls:  []llm.ToolCall{{ID: "call_obj", Name: "write_file", Arguments: `{"path":"x.go","content":"package x"}`}},
			finish: llm.FinishToolCalls, raw: "tool_calls",
			id: "chatcmpl-argsobj-7", model: "qwen2.5-coder",
		}},
		{"stream-content-null-empty-absent.sse", chatWant{
			text: "Yes.", finish: llm.FinishStop, raw: "stop",
			id: "chatcmpl-content-8", model: "gpt-4o-2024-08-06",
		}},
		{"stream-magistral-content-array.sse", chatWant{
			text: "The answer is 42.", reasoning: "The user wants a number. 42.", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 12, OutputTokens: 48, TotalTokens: 60},
			id:    "5f6e7d8c9b0a4f3e2d1c0b9a8f7e6d5c", model: "magistral-medium-latest",
		}},
		{"stream-deepseek-reasoning-content.sse", chatWant{
			text: "Hi there!", reasoning: "Simple greeting; answer politely.", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 520, OutputTokens: 30, TotalTokens: 550, CacheReadTokens: 512, ReasoningTokens: 22},
			id:    "8d2c6c1e-3a0b-4f5e-9c7d-1b2a3c4d5e6f", model: "deepseek-reasoner",
		}},
		{"stream-groq-reasoning-xgroq-usage.sse", chatWant{
			text: "5", reasoning: "Add them: 5.", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 75, OutputTokens: 14, TotalTokens: 89},
			id:    "chatcmpl-groq-11", model: "openai/gpt-oss-20b",
		}},
		{"stream-openrouter-reasoning-details.sse", chatWant{
			text: "4", reasoning: "Two plus two.", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 43, OutputTokens: 20, TotalTokens: 63, ReasoningTokens: 8},
			id:    "gen-1767225600-ORreason12", model: "anthropic/claude-sonnet-4.5",
		}},
		{"stream-reasoning-details-only.sse", chatWant{
			text: "2026-01-01", reasoning: "Checking the date format.", finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 30, OutputTokens: 90, TotalTokens: 120, ReasoningTokens: 80},
			id:    "gen-1767225600-ORdetails13", model: "openai/gpt-5-mini",
		}},
		{"stream-think-tags-split.sse", chatWant{
			text: "\n\nThere are three r's. <think> is just a tag.", reasoning: "\nCount the letters: three.",
			finish: llm.FinishStop, raw: "stop",
			usage: llm.Usage{InputTokens: 11, OutputTokens: 25, TotalTokens: 36},
			id:    "chatcmpl-think-14", model: "deepseek-r1:8b",
		}},
		{"stream-finish-length.sse", chatWant{
			text: "Once upon a time", finish: llm.FinishLength, raw: "length", id: "chatcmpl-finish-15", model: "gpt-4o-mini",
		}},
		{"stream-finish-content-filter.sse", chatWant{
			finish: llm.FinishContentFilter, raw: "content_filter", id: "chatcmpl-finish-15", model: "gpt-4o-mini",
		}},
		{"stream-finish-unknown.sse", chatWant{
			text: "Partial", finish: llm.FinishError, raw: "recitation", id: "chatcmpl-finish-15", model: "gpt-4o-mini",
		}},
		{"stream-finish-stop-with-calls.sse", chatWant{
			calls:  []llm.ToolCall{{ID: "call_stop", Name: "ls", Arguments: `{}`}},
			finish: llm.FinishToolCalls, raw: "stop", id: "chatcmpl-finish-15", model: "gpt-4o-mini",
		}},
		{"stream-groq-error-event.sse", chatWant{
			reasoning: "Call the tool with bad args.", finish: llm.FinishStop,
			id: "chatcmpl-groqerr-16", model: "openai/gpt-oss-120b",
			errKind: llm.ErrBadRequest, errText: "Tool call validation failed", inStream: true,
		}},
		{"stream-openrouter-error-chunk.sse", chatWant{
			text: "Let me think", finish: llm.FinishStop,
			usage: llm.Usage{InputTokens: 43, OutputTokens: 3, TotalTokens: 46},
			id:    "gen-1767225600-ORerr17", model: "minimax/minimax-m2",
			errKind: llm.ErrServer, errText: "Upstream provider disconnected", inStream: true,
		}},
		{"stream-comments-padding.sse", chatWant{
			text: "Framing", finish: llm.FinishStop, raw: "stop", id: "chatcmpl-framing-18", model: "llama.cpp",
		}},
		{"stream-no-done-finished.sse", chatWant{
			text: "Done", finish: llm.FinishStop, raw: "stop", id: "chatcmpl-nodone-19", model: "qwen2.5:7b",
		}},
		{"stream-truncated.sse", chatWant{
			text:   "The first half",
			calls:  []llm.ToolCall{{ID: "call_cut", Name: "save", Arguments: `{"text":`}},
			finish: llm.FinishToolCalls, id: "chatcmpl-cut-20", model: "gpt-4o-mini",
			errKind: llm.ErrNetwork, errText: "stream ended before the model finished",
		}},
		{"stream-bad-chunk.sse", chatWant{
			text: "Before", finish: llm.FinishStop, id: "chatcmpl-bad-21", model: "gpt-4o-mini",
			errKind: llm.ErrInvalidResponse, errText: "undecodable stream chunk",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			first := chatCheck(t, chatReplay(t, tt.file, false), tt.want)
			// Parsing the same reply twice gives the same response,
			// invented tool-call ids included.
			again := chatReplay(t, tt.file, false)
			if second := again[len(again)-1].Response; !reflect.DeepEqual(first, second) {
				t.Errorf("second replay differs:\n%+v\n%+v", first, second)
			}
		})
	}
}

// TestChatStreamTruncatedIsRetryable checks that a cut stream is reported
// as something the retry layer retries.
func TestChatStreamTruncatedIsRetryable(t *testing.T) {
	events := chatReplay(t, "stream-truncated.sse", false)
	err := events[len(events)-1].Err
	if !llm.KindOf(err).Retryable() {
		t.Errorf("error %v is not retryable", err)
	}
}

// chatBlockingServer streams two chunks and then holds the response open
// until the client goes away, which it reports on the returned channel.
func chatBlockingServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"x","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`+"\n\n")
		fmt.Fprint(w, `data: {"id":"x","model":"m","choices":[{"index":0,"delta":{"content":"partial"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	}))
	t.Cleanup(srv.Close)
	return srv, gone
}

// chatWithin fails the test if f does not return within d. It bounds a
// wait that must be prompt; it never sleeps when f is quick.
func chatWithin(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not happen within %s", what, d)
	}
}

func TestChatStreamCancel(t *testing.T) {
	srv, gone := chatBlockingServer(t)
	c := NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL + "/v1", Model: "m"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var last llm.Event
	var text string
	chatWithin(t, 5*time.Second, "the iterator ending after cancel", func() {
		for ev := range c.Stream(ctx, &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}) {
			if ev.Kind == llm.EventText {
				text += ev.Text
				cancel()
			}
			last = ev
		}
	})
	chatWithin(t, 5*time.Second, "the server seeing the request end", func() { <-gone })
	if last.Kind != llm.EventError || !errors.Is(last.Err, context.Canceled) {
		t.Fatalf("last event = %v %v, want an error wrapping context.Canceled", last.Kind, last.Err)
	}
	if text != "partial" || last.Response == nil || last.Response.Text() != "partial" {
		t.Errorf("text %q, partial response %+v; want the text that arrived before the cancel", text, last.Response)
	}
}

func TestChatStreamBreak(t *testing.T) {
	srv, gone := chatBlockingServer(t)
	c := NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL + "/v1", Model: "m"})
	n := 0
	chatWithin(t, 5*time.Second, "the iterator returning after break", func() {
		for ev := range c.Stream(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}) {
			n++
			if ev.Kind == llm.EventText {
				break
			}
		}
	})
	chatWithin(t, 5*time.Second, "the server seeing the request end", func() { <-gone })
	if n != 1 {
		t.Errorf("%d events before the break, want 1", n)
	}
}

func TestChatStreamHTTPError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)
	}))
	defer srv.Close()
	c := NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL + "/v1", Model: "m"})
	_, err := llm.Generate(t.Context(), c, &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	e, ok := llm.AsError(err)
	if !ok || e.Kind != llm.ErrRateLimited || e.Status != 429 || e.RetryAfter != 7*time.Second || e.InStream {
		t.Fatalf("error = %#v, want a 429 rate_limited *llm.Error with RetryAfter 7s", err)
	}
}
