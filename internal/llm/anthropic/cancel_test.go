package anthropic

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

const streamHead = "event: message_start\n" +
	`data: {"type":"message_start","message":{"id":"msg_slow","model":"m","usage":{"input_tokens":5,"output_tokens":1}}}` + "\n\n" +
	"event: content_block_start\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
	"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}` + "\n\n"

// stallingServer sends head (if any) and then holds the stream open until
// the client goes away; gone is closed when it does. The handler gives up
// after a while so that a broken adapter fails the test instead of hanging.
func stallingServer(t *testing.T, head string, arrived chan<- struct{}) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server notices a disconnect only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		if arrived != nil {
			close(arrived)
		}
		if head != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, head)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
			close(gone)
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(srv.Close)
	return srv, gone
}

func waitGone(t *testing.T, gone <-chan struct{}) {
	t.Helper()
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the HTTP request was not aborted")
	}
}

func hello() *llm.Request { return &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}} }

func TestBreakAbortsRequest(t *testing.T) {
	srv, gone := stallingServer(t, streamHead, nil)
	c := New(llm.Endpoint{Name: "claude", BaseURL: srv.URL, Model: "m"})
	texts := 0
	for ev := range c.Stream(t.Context(), hello()) {
		if ev.Kind == llm.EventText {
			texts++
			break
		}
	}
	if texts != 1 {
		t.Fatalf("saw %d text events before breaking", texts)
	}
	waitGone(t, gone)
}

func TestCancelMidStream(t *testing.T) {
	srv, gone := stallingServer(t, streamHead, nil)
	c := New(llm.Endpoint{Name: "claude", BaseURL: srv.URL, Model: "m"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var last llm.Event
	for ev := range c.Stream(ctx, hello()) {
		if ev.Kind == llm.EventText {
			cancel()
		}
		last = ev
	}
	if last.Kind != llm.EventError || !errors.Is(last.Err, context.Canceled) {
		t.Fatalf("last event %v with error %v, want an error event for context.Canceled", last.Kind, last.Err)
	}
	if last.Response == nil || last.Response.Text() != "Hel" || last.Response.ID != "msg_slow" {
		t.Errorf("partial response = %+v, want the text and id that arrived", last.Response)
	}
	waitGone(t, gone)
}

func TestCancelBeforeResponse(t *testing.T) {
	arrived := make(chan struct{})
	srv, gone := stallingServer(t, "", arrived)
	c := New(llm.Endpoint{Name: "claude", BaseURL: srv.URL, Model: "m"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		<-arrived
		cancel()
	}()
	_, err := llm.Generate(ctx, c, hello())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if _, ok := llm.AsError(err); ok {
		t.Errorf("the caller's cancellation was reported as a provider failure: %v", err)
	}
	waitGone(t, gone)
}

func TestIdleTimeoutIsNetworkError(t *testing.T) {
	srv, _ := stallingServer(t, streamHead, nil)
	c := New(llm.Endpoint{Name: "claude", BaseURL: srv.URL, Model: "m",
		Timeouts: llm.Timeouts{FirstByte: 5 * time.Second, Idle: 50 * time.Millisecond}})
	resp, err := llm.Generate(t.Context(), c, hello())
	e, ok := err.(*llm.Error) // not wrapped: callers switch on it directly
	if !ok || e.Kind != llm.ErrNetwork || e.Provider != "claude" {
		t.Fatalf("error = %v (%T), want a network *llm.Error", err, err)
	}
	if resp == nil || resp.Text() != "Hel" {
		t.Errorf("partial response = %+v, want the text that arrived", resp)
	}
}

func TestListModels(t *testing.T) {
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("x-api-key") != "k" || r.Header.Get("anthropic-version") != APIVersion {
			http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"bad call"}}`, 404)
			return
		}
		queries = append(queries, r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("after_id") == "" {
			_, _ = io.WriteString(w, `{"data":[{"type":"model","id":"claude-opus-4-1-20250805","display_name":"Claude Opus 4.1","created_at":"2025-08-05T00:00:00Z"}],
				"has_more":true,"first_id":"claude-opus-4-1-20250805","last_id":"claude-opus-4-1-20250805"}`)
			return
		}
		_, _ = io.WriteString(w, `{"data":[{"type":"model","id":"claude-3-haiku-20240307","display_name":"Claude Haiku 3","created_at":"2024-03-07T00:00:00Z"}],
			"has_more":false,"first_id":"claude-3-haiku-20240307","last_id":"claude-3-haiku-20240307"}`)
	}))
	defer srv.Close()
	models, err := New(llm.Endpoint{Name: "claude", BaseURL: srv.URL, APIKey: "k"}).ListModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ModelInfo{
		{ID: "claude-opus-4-1-20250805", DisplayName: "Claude Opus 4.1", Created: time.Date(2025, 8, 5, 0, 0, 0, 0, time.UTC)},
		{ID: "claude-3-haiku-20240307", DisplayName: "Claude Haiku 3", Created: time.Date(2024, 3, 7, 0, 0, 0, 0, time.UTC)},
	}
	if len(models) != len(want) {
		t.Fatalf("models = %+v, want %+v", models, want)
	}
	for i := range want {
		if models[i].ID != want[i].ID || models[i].DisplayName != want[i].DisplayName || !models[i].Created.Equal(want[i].Created) {
			t.Errorf("model %d = %+v, want %+v", i, models[i], want[i])
		}
	}
	if len(queries) != 2 || queries[1] != "after_id=claude-opus-4-1-20250805&limit=1000" {
		t.Errorf("queries = %q, want a second page after claude-opus-4-1-20250805", queries)
	}
}

func TestListModelsError(t *testing.T) {
	c, _ := serve(t, 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
	_, err := c.ListModels(t.Context())
	if llm.KindOf(err) != llm.ErrAuth {
		t.Fatalf("error = %v, want auth", err)
	}
}
