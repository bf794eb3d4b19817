package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hermes-go/hermes"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// TestAskKeepsCallersApart runs the handler against a scripted model:
// alice asks, continues her session, and bob can neither continue it nor
// call without a token; the clock tool answers through hermes.
func TestAskKeepsCallersApart(t *testing.T) {
	model := llmtest.New(t)
	model.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "t1", Name: "server_time", Arguments: `{"zone":"Asia/Shanghai"}`}}},
		llmtest.Reply{Text: "It is morning in Shanghai."},
		llmtest.Reply{Text: "You asked about the time."},
	)
	clock, err := clockTool()
	if err != nil {
		t.Fatal(err)
	}
	agent, err := hermes.Open(context.Background(), hermes.Options{InMemory: true, Workdir: t.TempDir(), Tools: []*hermes.Tool{clock},
		Config: []byte("model: {base_url: \"" + model.URL() + "/v1\", default: demo, api_mode: chat_completions, api_key: sk-demo-0123456789}\n")})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	tokens, err := parseTokens("alice:alice-token, bob:bob-token")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newServer(agent, tokens))
	defer srv.Close()

	ask := func(token, body string) (int, askReply) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/ask", strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out askReply
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	code, first := ask("alice-token", `{"text":"What time is it in Shanghai?"}`)
	if code != http.StatusOK || first.Text != "It is morning in Shanghai." || first.Session == "" {
		t.Fatalf("alice's question: %d %+v", code, first)
	}
	for _, c := range []struct {
		token, body string
		want        int
	}{
		{"", `{"text":"hi"}`, http.StatusUnauthorized},
		{"alice-tokenX", `{"text":"hi"}`, http.StatusUnauthorized},
		{"bob-token", `{"session":"` + first.Session + `","text":"What did alice ask?"}`, http.StatusNotFound},
		{"alice-token", `{"text":""}`, http.StatusBadRequest},
		{"alice-token", `{"session":"../../etc/passwd","text":"hi"}`, http.StatusNotFound},
	} {
		if code, _ := ask(c.token, c.body); code != c.want {
			t.Errorf("token %q body %s: status %d, want %d", c.token, c.body, code, c.want)
		}
	}
	code, second := ask("alice-token", `{"session":"`+first.Session+`","text":"What did I ask?"}`)
	if code != http.StatusOK || second.Session != first.Session || second.Text != "You asked about the time." {
		t.Fatalf("alice's second turn: %d %+v", code, second)
	}
	var toolRead string
	for _, r := range model.Requests() {
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool && m.ToolCallID == "t1" {
				toolRead = m.Text()
			}
		}
	}
	if !strings.Contains(toolRead, `"status":"ok"`) || !strings.Contains(toolRead, "+08:00") {
		t.Errorf("the clock tool answered %s", toolRead)
	}
}

func TestParseTokens(t *testing.T) {
	for _, bad := range []string{"", "alice", "alice:short", ":token123"} {
		if _, err := parseTokens(bad); err == nil || !strings.Contains(err.Error(), "HTTPAGENT_TOKENS") {
			t.Errorf("parseTokens(%q) = %v, want an error naming HTTPAGENT_TOKENS", bad, err)
		}
	}
}
