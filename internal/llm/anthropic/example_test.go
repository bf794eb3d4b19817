package anthropic_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/anthropic"
)

func Example() {
	// A stand-in for api.anthropic.com that streams a short reply.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\n",
			`data: {"type":"message_start","message":{"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":12,"cache_read_input_tokens":2048,"output_tokens":1}}}`, "\n\n",
			"event: content_block_delta\n",
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello!"}}`, "\n\n",
			"event: message_delta\n",
			`data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`, "\n\n",
			"event: message_stop\n", `data: {"type":"message_stop"}`, "\n\n")
	}))
	defer srv.Close()

	claude := anthropic.New(llm.Endpoint{Name: "claude", BaseURL: srv.URL, APIKey: "sk-ant-…", Model: "claude-sonnet-4-5"})
	req := &llm.Request{
		Messages:         []llm.Message{llm.SystemMessage("You are terse."), llm.UserMessage("Say hello.")},
		CacheBreakpoints: true,
	}
	for ev := range claude.Stream(context.Background(), req) {
		switch ev.Kind {
		case llm.EventText:
			fmt.Print(ev.Text)
		case llm.EventDone:
			u := ev.Response.Usage
			fmt.Printf("\n%s: %d prompt tokens (%d from cache), %d out\n", ev.Response.FinishReason, u.InputTokens, u.CacheReadTokens, u.OutputTokens)
		case llm.EventError:
			fmt.Println("error:", ev.Err)
		}
	}
	// Output:
	// Hello!
	// stop: 2060 prompt tokens (2048 from cache), 3 out
}
