package facts

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
)

// testProvider is an OpenAI Chat provider talking to srv.
func testProvider(srv *llmtest.Server) llm.Provider {
	return openai.NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m"})
}

// fakeKey looks like an OpenAI key to redact.Secrets.
const fakeKey = "sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"

func TestExtract(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Here is what I found:\n```json\n" + `[
  {"kind": "preference", "subject": "answer language", "content": "The user wants answers in Chinese.", "confidence": 0.95},
  {"kind": "decision", "subject": "部署", "content": "部署到生产环境前必须先跑集成测试。", "confidence": "0.8"},
  {"kind": "fact", "subject": "weather", "content": "It was raining today.", "confidence": 0.4},
  {"kind": "fact", "subject": "api key", "content": "The user's OpenAI key is ` + fakeKey + `.", "confidence": 0.99},
  {"kind": "rumour", "subject": "x", "content": "Not a kind hermes keeps.", "confidence": 0.9},
  {"kind": "pattern", "subject": "reports", "content": "Every Monday the user asks for a sales report.", "confidence": 90}
]` + "\n```\nLet me know if you need anything else."})

	transcript := []llm.Message{
		llm.SystemMessage("You are hermes. SYSTEM-PROMPT-MARKER"),
		llm.UserMessage("Please always answer me in Chinese. My key is " + fakeKey),
		llm.AssistantMessage("好的。", llm.ToolCall{ID: "c1", Name: "terminal", Arguments: `{"command": "kubectl apply -f deploy.yaml"}`}),
		llm.ToolResultMessage("c1", "terminal", "TOOL-OUTPUT-MARKER deployment configured"),
		llm.AssistantMessage("部署完成。"),
	}
	got, err := Extract(context.Background(), testProvider(srv), "aux-model", "20261201_093000_ab12cd", transcript)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}

	var contents []string
	for _, f := range got {
		contents = append(contents, f.Content)
		if f.SourceSession != "20261201_093000_ab12cd" {
			t.Errorf("fact %q has source %q", f.Content, f.SourceSession)
		}
	}
	want := []string{
		"The user wants answers in Chinese.",
		"部署到生产环境前必须先跑集成测试。",
		"Every Monday the user asks for a sales report.",
	}
	if strings.Join(contents, "|") != strings.Join(want, "|") {
		t.Errorf("kept %q,\nwant %q (low confidence, secret and bad kind dropped)", contents, want)
	}
	if len(got) == 3 && (got[1].Kind != KindDecision || got[2].Confidence != 0.9) {
		t.Errorf("kind or confidence not kept: %+v", got)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "aux-model" || len(r.Tools) != 0 {
		t.Errorf("request model %q with %d tools; want aux-model and none", r.Model, len(r.Tools))
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != llm.RoleSystem ||
		!strings.Contains(r.Messages[0].Text(), "ONLY a JSON array") {
		t.Fatalf("request is not instructions + transcript: %+v", r.Messages)
	}
	sent := r.LastUserText()
	for _, must := range []string{"user: Please always answer me in Chinese.", "[REDACTED:openai_key]",
		`hermes called terminal({"command": "kubectl apply -f deploy.yaml"})`, "hermes: 部署完成。"} {
		if !strings.Contains(sent, must) {
			t.Errorf("transcript sent lacks %q:\n%s", must, sent)
		}
	}
	for _, mustNot := range []string{fakeKey, "SYSTEM-PROMPT-MARKER", "TOOL-OUTPUT-MARKER"} {
		if strings.Contains(sent, mustNot) || strings.Contains(string(r.Body), mustNot) {
			t.Errorf("request carries %q", mustNot)
		}
	}
}

func TestExtractReplies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reply   string
		n       int
		wantErr bool
	}{
		{"empty array", "[]", 0, false},
		{"empty array in a fence", "```json\n[]\n```", 0, false},
		{"bare array", `[{"kind":"fact","subject":"os","content":"The user runs Arch Linux.","confidence":0.9}]`, 1, false},
		{"array after text", `Sure! [{"kind":"fact","subject":"os","content":"The user runs Arch Linux.","confidence":0.9}] Done [x].`, 1, false},
		{"fence without language", "```\n[{\"kind\":\"Preference\",\"content\":\"The user likes terse answers.\",\"confidence\":\"85%\"}]\n```", 1, false},
		{"more than eight", manyFacts(10), 8, false},
		{"prose only", "Nothing much happened in this conversation.", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Enqueue(llmtest.Reply{Text: tc.reply})
			got, err := Extract(context.Background(), testProvider(srv), "", "s", []llm.Message{llm.UserMessage("hi")})
			if (err != nil) != tc.wantErr {
				t.Fatalf("Extract error = %v, want error %v", err, tc.wantErr)
			}
			if len(got) != tc.n {
				t.Errorf("%d facts, want %d: %+v", len(got), tc.n, got)
			}
		})
	}
}

// manyFacts is a reply with n distinct confident facts.
func manyFacts(n int) string {
	var items []map[string]any
	for i := range n {
		items = append(items, map[string]any{"kind": "fact", "subject": "s",
			"content": "Fact number " + strings.Repeat("i", i+1) + ".", "confidence": 0.9})
	}
	b, _ := json.Marshal(items)
	return string(b)
}

func TestCompactTranscriptKeepsTheEnd(t *testing.T) {
	msgs := []llm.Message{llm.UserMessage("FIRST " + strings.Repeat("a", 30_000))}
	msgs = append(msgs, llm.AssistantMessage("LAST words"))
	got := compactTranscript(msgs)
	if n := len([]rune(got)); n > maxTranscript+100 {
		t.Errorf("transcript is %d characters, cap is %d", n, maxTranscript)
	}
	if strings.Contains(got, "FIRST") || !strings.HasSuffix(got, "hermes: LAST words") ||
		!strings.HasPrefix(got, "[earlier part of the conversation omitted]") {
		t.Errorf("transcript did not keep its end: %q…%q", got[:60], got[len(got)-40:])
	}
	if compactTranscript([]llm.Message{llm.SystemMessage("only a system prompt")}) != "" {
		t.Error("a transcript of a system prompt alone is not empty")
	}
}
