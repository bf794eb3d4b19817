package llm_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/anthropic"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
)

func TestReplyLimit(t *testing.T) {
	for _, tt := range []struct {
		maxTokens int
		want      int64
	}{
		{0, llm.ReplyCeiling},
		{-1, llm.ReplyCeiling},
		{1000, 1000*16 + 64<<10},
		{128_000, 128_000*16 + 64<<10},
		{10_000_000, llm.ReplyCeiling},
	} {
		if got := llm.ReplyLimit(tt.maxTokens); got != tt.want {
			t.Errorf("ReplyLimit(%d) = %d, want %d", tt.maxTokens, got, tt.want)
		}
	}
}

// wireCounter is a transport that counts the bytes read from response
// bodies and whether every body was closed.
type wireCounter struct {
	base   http.RoundTripper
	read   atomic.Int64
	mu     sync.Mutex
	open   int
	closed int
}

func (w *wireCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.open++
	w.mu.Unlock()
	resp.Body = &countedBody{ReadCloser: resp.Body, w: w}
	return resp, nil
}

type countedBody struct {
	io.ReadCloser
	w    *wireCounter
	once sync.Once
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.w.read.Add(int64(n))
	return n, err
}

func (b *countedBody) Close() error {
	b.once.Do(func() {
		b.w.mu.Lock()
		b.w.closed++
		b.w.mu.Unlock()
	})
	return b.ReadCloser.Close()
}

// A model that never stops — writing text, reasoning or a tool call's
// arguments for ever, or one line that never ends — gets its stream cut
// once the reply passes its size cap, on every adapter, streamed or not:
// the stream ends with a reply_too_large error, the connection is closed,
// and no more is read than the cap allows.
func TestEndlessReplyIsCut(t *testing.T) {
	adapters := []struct {
		name string
		make func(srv *llmtest.Server, client *http.Client) llm.Provider
	}{
		{"chat", func(srv *llmtest.Server, c *http.Client) llm.Provider {
			return openai.NewChat(llm.Endpoint{Name: "p", BaseURL: srv.URL() + "/v1", Model: "m", Client: c})
		}},
		{"responses", func(srv *llmtest.Server, c *http.Client) llm.Provider {
			return openai.NewResponses(llm.Endpoint{Name: "p", BaseURL: srv.URL() + "/v1", Model: "m", Client: c})
		}},
		{"anthropic", func(srv *llmtest.Server, c *http.Client) llm.Provider {
			return anthropic.New(llm.Endpoint{Name: "p", BaseURL: srv.URL(), Model: "m", Client: c})
		}},
	}
	cases := []struct {
		kind      llmtest.Endless
		maxTokens int
		stream    bool
	}{
		{llmtest.EndlessText, 0, true},
		{llmtest.EndlessText, 1000, true},
		{llmtest.EndlessText, 1000, false},
		{llmtest.EndlessReasoning, 1000, true},
		{llmtest.EndlessArguments, 1000, true},
		{llmtest.EndlessLine, 1000, true},
		{llmtest.EndlessLine, 1000, false},
		{llmtest.EndlessParts, 1000, true},
		{llmtest.EndlessEmpty, 1000, true},
	}
	for _, ad := range adapters {
		for _, tc := range cases {
			name := fmt.Sprintf("%s/%s/max_tokens=%d/stream=%v", ad.name, tc.kind, tc.maxTokens, tc.stream)
			t.Run(name, func(t *testing.T) {
				srv := llmtest.New(t)
				srv.Enqueue(llmtest.Reply{Endless: tc.kind, ChunkSize: 4 << 10, ToolCalls: []llm.ToolCall{{Name: "write_file"}}})
				wire := &wireCounter{base: http.DefaultTransport}
				p := ad.make(srv, &http.Client{Transport: wire})
				req := &llm.Request{Messages: []llm.Message{llm.UserMessage("go")}, MaxTokens: tc.maxTokens, NoStream: !tc.stream}
				var kept int
				var final llm.Event
				for ev := range p.Stream(t.Context(), req) {
					switch ev.Kind {
					case llm.EventText, llm.EventReasoning:
						kept += len(ev.Text)
					case llm.EventToolCall:
						kept += len(ev.ToolCall.Arguments)
					case llm.EventDone, llm.EventError:
						final = ev
					}
				}
				if final.Kind != llm.EventError || llm.KindOf(final.Err) != llm.ErrReplyTooLarge {
					t.Fatalf("the stream ended with %v (%v), want a reply_too_large error", final.Kind, final.Err)
				}
				if msg := final.Err.Error(); !strings.Contains(msg, "cut the stream") {
					t.Errorf("error %q does not say the stream was cut", msg)
				}
				maxTokens := tc.maxTokens
				if maxTokens == 0 && ad.name == "anthropic" {
					maxTokens = anthropic.DefaultMaxTokens
				}
				b := llm.NewBudget("p", maxTokens)
				if limit := llm.ReplyLimit(maxTokens); int64(kept) > limit+4<<10 {
					t.Errorf("%d bytes of the reply were passed on, the cap is %d", kept, limit)
				}
				if read, most := wire.read.Load(), int64(b.MaxBody())+1<<20; tc.kind != llmtest.EndlessEmpty && read > most {
					t.Errorf("%d bytes were read off the wire, want at most about %d", read, most)
				}
				wire.mu.Lock()
				defer wire.mu.Unlock()
				if wire.open != 1 || wire.closed != 1 {
					t.Errorf("%d responses, %d closed: the connection was not closed", wire.open, wire.closed)
				}
			})
		}
	}
}
