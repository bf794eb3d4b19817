package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/npmtest"
)

// TestACPModesModelsAndMCPWithOfficialClient drives hermes acp with the
// official TypeScript client: session/new connects the editor's MCP server
// (server-everything over stdio), whose tool the model calls; the session
// asks before a dangerous command until the editor switches it to yolo,
// after which the command runs unasked while a hardline one stays refused;
// picking the fallback model through the model config option makes the
// next turn call it; each turn reports its usage.
func TestACPModesModelsAndMCPWithOfficialClient(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	h.write("config.yaml", "model:\n  provider: custom\n  default: test-model\n  base_url: "+srv.URL()+"/v1\n"+
		"  api_mode: chat_completions\n  api_key: sk-test-123456\n"+
		"fallback_providers:\n  - {provider: custom, model: test-model-cheap}\n")
	node := npmtest.Node(t)
	everything := npmtest.Script(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	work := t.TempDir()
	asked, unasked := filepath.Join(work, "asked"), filepath.Join(work, "unasked")
	for _, d := range []string{asked, unasked} {
		if err := os.MkdirAll(filepath.Join(d, "inner"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{call("mcp__everything__echo", `{"message":"hello from the editor's server"}`)}},
		llmtest.Reply{Text: "Echoed."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + asked)}},
		llmtest.Reply{Text: "Kept."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + unasked)}},
		llmtest.Reply{Text: "Removed."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("mkfs.ext4 /dev/hermes-test-no-such-device")}},
		llmtest.Reply{Text: "Refused."},
		llmtest.Reply{Text: "Cheap answer."},
	)
	mcpServer := map[string]any{"name": "everything", "command": node, "args": []string{everything, "stdio"},
		"env": []map[string]string{{"name": "EDITOR_MCP_TOKEN", "value": "editor-token-4711"}}}
	steps := acpRunArgs(t, h, work, []string{"acp"}, nil,
		map[string]any{"op": "initialize"},
		map[string]any{"op": "new", "mcp_servers": []any{mcpServer}},
		map[string]any{"op": "prompt", "text": "echo"},
		map[string]any{"op": "prompt", "text": "delete asked", "permission": "deny"},
		map[string]any{"op": "set_mode", "mode": "yolo"},
		map[string]any{"op": "prompt", "text": "delete unasked", "permission": "deny"},
		map[string]any{"op": "prompt", "text": "format a disk", "permission": "once"},
		map[string]any{"op": "set_option", "config": "model", "value": "test-model-cheap"},
		map[string]any{"op": "prompt", "text": "answer cheaply"},
	)
	var announced struct {
		Modes struct {
			CurrentModeID  string `json:"currentModeId"`
			AvailableModes []struct {
				ID string `json:"id"`
			} `json:"availableModes"`
		} `json:"modes"`
		Models struct {
			CurrentModelID  string `json:"currentModelId"`
			AvailableModels []struct {
				ModelID string `json:"modelId"`
			} `json:"availableModels"`
		} `json:"models"`
	}
	if err := json.Unmarshal(steps[1].Result, &announced); err != nil || announced.Modes.CurrentModeID != "ask" ||
		len(announced.Modes.AvailableModes) != 3 || announced.Models.CurrentModelID != "test-model" || len(announced.Models.AvailableModels) != 2 {
		t.Errorf("session/new announced %s", steps[1].Result)
	}

	if u := toolUpdate(t, steps[2]); u.Status != "completed" || !strings.Contains(u.Text, "hello from the editor's server") {
		t.Errorf("the editor's MCP tool: %+v", u)
	}
	if len(steps[2].Usage) == 0 || steps[2].Usage[0].Used == 0 || steps[2].Usage[0].Size == 0 {
		t.Errorf("usage after a turn: %+v", steps[2].Usage)
	}

	if len(steps[3].Asked) != 1 {
		t.Errorf("in ask mode: asked %+v", steps[3].Asked)
	}
	if _, err := os.Stat(asked); err != nil {
		t.Errorf("the refused command ran: %v", err)
	}
	if kinds(steps[4].Updates) != "current_mode_update" || steps[4].Updates[0].ID != "yolo" {
		t.Errorf("set_mode updates: %+v", steps[4].Updates)
	}
	if len(steps[5].Asked) != 0 {
		t.Errorf("in yolo mode: asked %+v", steps[5].Asked)
	}
	if _, err := os.Stat(unasked); !os.IsNotExist(err) {
		t.Errorf("in yolo mode the command did not run: %v", err)
	}
	if hard := steps[6]; len(hard.Asked) != 0 || toolUpdate(t, hard).Status != "failed" {
		t.Errorf("hardline in yolo mode: asked %+v, update %+v", hard.Asked, toolUpdate(t, hard))
	}
	if !strings.Contains(string(steps[7].Result), `"currentValue":"test-model-cheap"`) {
		t.Errorf("set_config_option answered %s", steps[7].Result)
	}

	reqs := srv.Requests()
	if len(reqs) != 9 {
		t.Fatalf("%d model requests, want 9", len(reqs))
	}
	for i, r := range reqs {
		want := "test-model"
		if i == 8 {
			want = "test-model-cheap"
		}
		if r.Model != want {
			t.Errorf("request %d went to model %q; want %q", i, r.Model, want)
		}
	}
	offered := false
	for _, s := range reqs[0].Tools {
		offered = offered || s.Name == "mcp__everything__echo"
	}
	if !offered {
		t.Errorf("the editor's MCP tools were not offered")
	}
}
