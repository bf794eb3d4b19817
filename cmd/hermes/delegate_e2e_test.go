package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// The model hands three tasks to children: each runs as its own session
// with the parent's tools less the blocked ones, a child's dangerous
// command is refused since nobody watches it, the results come back in
// task order with a secret a child wrote redacted, and `hermes sessions
// show` opens a child.
func TestChatDelegatesThreeTasks(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	keep := filepath.Join(work, "keep")
	if err := os.Mkdir(keep, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		var first string
		for _, m := range r.Messages {
			if m.Role == llm.RoleUser {
				first = m.Text()
				break
			}
		}
		last := r.Messages[len(r.Messages)-1]
		switch {
		case strings.HasPrefix(first, "Survey the repo"):
			if last.Role == llm.RoleTool {
				return llmtest.Reply{Text: "Three reports are in."}
			}
			args, _ := json.Marshal(map[string]any{"tasks": []map[string]string{
				{"goal": "count the lines", "context": "in " + work}, {"goal": "clean the tree"}, {"goal": "name the owner"}}})
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "delegate_task", Arguments: string(args)}}}
		case last.Role == llm.RoleTool:
			return llmtest.Reply{Text: "child report: " + last.Text()}
		case strings.HasPrefix(first, "clean the tree"):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + keep)}}
		case strings.HasPrefix(first, "count the lines"):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo 42 lines")}}
		}
		var tools []string
		for _, s := range r.Tools {
			tools = append(tools, s.Name)
		}
		return llmtest.Reply{Text: "owner is ops, key sk-test-123456; tools " + strings.Join(tools, ",")}
	})
	out, r := h.chatIn(srv, work, "Survey the repo")
	if r.code != 0 || out.Stopped != "done" || out.Final != "Three reports are in." {
		t.Fatalf("exit %d, result %+v\nstderr: %s", r.code, out, r.stderr)
	}
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != "delegate_task" || out.ToolCalls[0].Status != "ok" {
		t.Fatalf("tool calls = %+v", out.ToolCalls)
	}
	var env struct {
		Data struct {
			Results []struct {
				Task      int    `json:"task_index"`
				Status    string `json:"status"`
				SessionID string `json:"session_id"`
				Summary   string `json:"summary"`
			} `json:"results"`
		} `json:"data"`
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if err := json.Unmarshal([]byte(last.Messages[len(last.Messages)-1].Text()), &env); err != nil || len(env.Data.Results) != 3 {
		t.Fatalf("the parent was sent %v: %s", err, last.Messages[len(last.Messages)-1].Text())
	}
	res := env.Data.Results
	if strings.Contains(res[2].Summary, "sk-test-123456") {
		t.Errorf("a secret a child wrote reached the parent's model: %s", res[2].Summary)
	}
	for i, want := range []string{"42 lines", "denied", "owner is ops"} {
		if res[i].Task != i || res[i].Status != "completed" || !strings.Contains(res[i].Summary, want) {
			t.Errorf("result %d = %+v, want it completed and saying %q", i, res[i], want)
		}
	}
	_, list, _ := strings.Cut(res[2].Summary, "tools ")
	offered := strings.Split(list, ",")
	if !slices.Contains(offered, "terminal") {
		t.Errorf("a child was not offered its parent's terminal: %v", offered)
	}
	for _, blocked := range []string{"delegate_task", "memory", "cronjob", "execute_code", "clarify"} {
		if slices.Contains(offered, blocked) {
			t.Errorf("a child was offered %s: %v", blocked, offered)
		}
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a child's rm -rf ran: %v", err)
	}
	show := h.hermes("sessions", "show", res[0].SessionID)
	if show.code != 0 || !strings.Contains(show.stdout, "count the lines") || !strings.Contains(show.stdout, "42 lines") {
		t.Errorf("sessions show %s: exit %d\n%s\n%s", res[0].SessionID, show.code, show.stdout, show.stderr)
	}
}
