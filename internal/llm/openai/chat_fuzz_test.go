package openai

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// FuzzChatStream feeds arbitrary bodies to the stream parser: whatever
// arrives, it must not panic, must end with exactly one terminal event,
// and its deltas must add up to the response it ends with.
func FuzzChatStream(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "chat", "*.sse"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"<think>a</th\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"ink>b\"},\"finish_reason\":\"stop\"}]}\n\n"))
	c := NewChat(llm.Endpoint{Name: "test", BaseURL: "http://x/v1"})
	f.Fuzz(func(t *testing.T, body []byte) {
		var events []llm.Event
		c.readStream(t.Context(), newChatReply("test", llm.NewBudget("test", 0)), bytes.NewReader(body), func(ev llm.Event) bool {
			events = append(events, ev)
			return true
		})
		if len(events) == 0 {
			t.Fatal("no events")
		}
		last := events[len(events)-1]
		if (last.Kind != llm.EventDone && last.Kind != llm.EventError) || last.Response == nil {
			t.Fatalf("last event %v with response %v", last.Kind, last.Response)
		}
		if last.Kind == llm.EventError {
			if _, ok := llm.AsError(last.Err); !ok {
				t.Fatalf("error %v is not an *llm.Error", last.Err)
			}
		}
		llmtest.CheckDeltas(t, events, last.Response)
	})
}

// FuzzChatThinkSplitter checks that where chunks break never changes what
// the splitter releases, and that text without a leading <think> passes
// through untouched.
func FuzzChatThinkSplitter(f *testing.F) {
	f.Add("<think>a</think>b", uint(3), uint(12))
	f.Add(" \n<think>\nx</thi</think>\n\ny", uint(1), uint(20))
	f.Add("plain <think>", uint(2), uint(4))
	f.Fuzz(func(t *testing.T, in string, i, j uint) {
		a, b := int(i%uint(len(in)+1)), int(j%uint(len(in)+1))
		if a > b {
			a, b = b, a
		}
		r1, t1 := chatSplit([]string{in})
		r2, t2 := chatSplit([]string{in[:a], in[a:b], in[b:]})
		if r1 != r2 || t1 != t2 {
			t.Fatalf("whole %q/%q, split at %d,%d %q/%q", r1, t1, a, b, r2, t2)
		}
		rest := strings.TrimLeft(in, " \t\r\n")
		if !strings.HasPrefix(rest, chatThinkOpen) && (r1 != "" || t1 != in) {
			t.Fatalf("no leading tag, yet reasoning %q text %q", r1, t1)
		}
	})
}

// FuzzChatUnquote checks the string fast path against encoding/json.
func FuzzChatUnquote(f *testing.F) {
	for _, s := range []string{`"plain"`, `"es\"c\\aped\n"`, `"caf\u00e9 数据"`, "\"bad \xff utf8\"", `"\ud83d\ude00"`, `""`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		if json.Unmarshal(b, &want) != nil {
			return
		}
		var got string
		if err := chatUnquote(b, &got); err != nil || got != want {
			t.Fatalf("chatUnquote(%q) = %q, %v; want %q", b, got, err, want)
		}
	})
}
