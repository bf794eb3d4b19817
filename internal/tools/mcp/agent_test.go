package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/tool"
)

// TestThroughAgentLoop has a scripted model (a real HTTP server speaking
// the OpenAI protocol) call MCP tools and checks what the model is sent
// back: the tools in its tool list, and each result in the next request.
func TestThroughAgentLoop(t *testing.T) {
	fs, dir := filesystemServer(t)
	_, reg, _ := startManager(t, map[string]ServerConfig{"everything": everythingStdio(t), "fs": fs})
	srv := llmtest.New(t)
	cfg := agent.Config{
		Provider:   openai.NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m"}),
		Model:      "m",
		Tools:      reg.Specs(),
		Dispatcher: &tool.Dispatcher{Registry: reg},
		Resolver:   reg,
		System:     "You are a test.",
		SessionID:  "s1",
	}
	notes := filepath.Join(dir, "notes.txt")
	tests := []struct {
		name  string
		calls []llm.ToolCall
		// want holds, per call, strings its tool message must contain.
		want [][]string
	}{
		{"echo", []llm.ToolCall{{Name: "mcp__everything__echo", Arguments: `{"message":"through the loop"}`}},
			[][]string{{`{"status":"ok","data":"Echo: through the loop"}`}}},
		{"sum", []llm.ToolCall{{Name: "mcp__everything__get-sum", Arguments: `{"a":2.5,"b":4}`}},
			[][]string{{`The sum of 2.5 and 4 is 6.5.`}}},
		{"error", []llm.ToolCall{{Name: "mcp__everything__get-resource-reference", Arguments: `{"resourceId":-3}`}},
			[][]string{{`"status":"error"`, `"error_code":"internal"`, `Invalid resourceId: -3`}}},
		{"filesystem", []llm.ToolCall{
			{Name: "mcp__fs__list_directory", Arguments: `{"path":` + quote(dir) + `}`},
			{Name: "mcp__fs__read_text_file", Arguments: `{"path":` + quote(notes) + `}`},
		}, [][]string{{`[FILE] notes.txt`, `[FILE] plan.md`}, {`first line\nsecond line`}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(srv.Requests())
			srv.Enqueue(llmtest.Reply{ToolCalls: tc.calls}, llmtest.Reply{Text: "done"})
			res := agent.Run(context.Background(), cfg, nil, llm.UserMessage("go"), nil)
			if res.Stopped != agent.StopDone || len(res.ToolCalls) != len(tc.calls) {
				t.Fatalf("result = %+v", res)
			}
			reqs := srv.Requests()[before:]
			if len(reqs) != 2 {
				t.Fatalf("the model was called %d times, want 2", len(reqs))
			}
			if !hasTool(reqs[0].Tools, tc.calls[0].Name) {
				t.Errorf("the model was not offered %s", tc.calls[0].Name)
			}
			msgs := reqs[1].Messages
			results := msgs[len(msgs)-len(tc.calls):]
			for i, m := range results {
				if m.Role != llm.RoleTool {
					t.Fatalf("message %d is a %s message, want a tool result", i, m.Role)
				}
				for _, w := range tc.want[i] {
					if !strings.Contains(m.Text(), w) {
						t.Errorf("result of %s = %s; want it to contain %s", tc.calls[i].Name, m.Text(), w)
					}
				}
			}
		})
	}
	t.Run("image", func(t *testing.T) {
		before := len(srv.Requests())
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "mcp__everything__get-tiny-image", Arguments: `{}`}}}, llmtest.Reply{Text: "a logo"})
		if res := agent.Run(context.Background(), cfg, nil, llm.UserMessage("show me"), nil); res.Stopped != agent.StopDone {
			t.Fatalf("result = %+v", res)
		}
		msgs := srv.Requests()[before+1].Messages
		last := msgs[len(msgs)-1]
		if last.Role != llm.RoleUser || !strings.Contains(last.Text(), "mcp__everything__get-tiny-image") {
			t.Fatalf("the last message is %s %q, want the image for the model", last.Role, last.Text())
		}
		var image bool
		for _, p := range last.Content {
			if strings.HasPrefix(p.ImageURL, "data:image/png;base64,") {
				image = true
			}
		}
		if !image {
			t.Errorf("the image message carries no PNG: %+v", last.Content)
		}
	})
}

func hasTool(specs []llm.ToolSpec, name string) bool {
	for _, s := range specs {
		if s.Name == name {
			return true
		}
	}
	return false
}
