package llmtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/sse"
)

// replyText extracts the visible text of any protocol's reply, streamed or
// not, without a *testing.T so that it can run in many goroutines.
func replyText(api API, resp *http.Response) (string, error) {
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	var b strings.Builder
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r := sse.NewReader(resp.Body)
		for {
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				return b.String(), nil
			}
			if err != nil {
				return "", err
			}
			if string(ev.Data) == "[DONE]" {
				continue
			}
			var v map[string]any
			if err := json.Unmarshal(ev.Data, &v); err != nil {
				return "", err
			}
			switch {
			case api == ChatCompletions:
				b.WriteString(str(v, "choices", 0, "delta", "content"))
			case ev.Name == "response.output_text.delta":
				b.WriteString(str(v, "delta"))
			case ev.Name == "content_block_delta":
				b.WriteString(str(v, "delta", "text"))
			}
		}
	}
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "", err
	}
	switch api {
	case ChatCompletions:
		return str(v, "choices", 0, "message", "content"), nil
	case Responses:
		return str(v, "output", 0, "content", 0, "text"), nil
	}
	return str(v, "content", 0, "text"), nil
}

func TestConcurrentRequests(t *testing.T) {
	const n = 60
	srv := New(t)
	srv.Handle(Echo)
	scripted := map[string]bool{}
	for i := range n / 2 {
		text := fmt.Sprintf("scripted %d", i)
		scripted[text] = false
		srv.Enqueue(Reply{Text: text, ChunkSize: 3})
	}
	templates := map[API]string{
		ChatCompletions:   `{"model":"m","stream":%t,"messages":[{"role":"user","content":%q}]}`,
		Responses:         `{"model":"m","stream":%t,"input":[{"role":"user","content":%q}]}`,
		AnthropicMessages: `{"model":"m","max_tokens":9,"stream":%t,"messages":[{"role":"user","content":%q}]}`,
	}
	apis := []API{ChatCompletions, Responses, AnthropicMessages}
	var (
		mu      sync.Mutex
		replies []string
		wg      sync.WaitGroup
	)
	for i := range n {
		wg.Go(func() {
			api := apis[i%3]
			ask := fmt.Sprintf("question %d", i)
			body := fmt.Sprintf(templates[api], i%2 == 0, ask)
			req, _ := http.NewRequest(http.MethodPost, srv.URL()+endpoint[api], strings.NewReader(body))
			req.Header.Set("anthropic-version", "2023-06-01")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			text, err := replyText(api, resp)
			if err != nil {
				t.Errorf("request %d (%s): %v", i, api, err)
				return
			}
			if text != ask && !strings.HasPrefix(text, "scripted ") {
				t.Errorf("request %d got %q, want its echo or a scripted reply", i, text)
			}
			mu.Lock()
			replies = append(replies, text)
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, r := range replies {
		if _, ok := scripted[r]; ok {
			if scripted[r] {
				t.Errorf("scripted reply %q served twice", r)
			}
			scripted[r] = true
		}
	}
	for text, served := range scripted {
		if !served {
			t.Errorf("scripted reply %q never served", text)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != n {
		t.Fatalf("%d requests recorded, want %d", len(reqs), n)
	}
	for i, r := range reqs {
		if r.Index != i {
			t.Errorf("Requests()[%d].Index = %d", i, r.Index)
		}
	}
	if v := srv.Violations(); len(v) != 0 {
		t.Errorf("violations: %q", v)
	}
}
