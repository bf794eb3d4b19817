package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// TestACPEditorTerminalWithOfficialClient has the official client offer
// terminals: the session's commands run in them, the second in the
// directory and with the variable the first left, each shown in its tool
// call and released when it ends (the first terminal records the
// environment the editor's terminals start with).
func TestACPEditorTerminalWithOfficialClient(t *testing.T) {
	h := newHome(t)
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("t1", "terminal", map[string]any{"command": "mkdir -p sub && cd sub && export GREETING='hello editor'"})}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{toolCall("t2", "terminal", map[string]any{"command": `echo "$GREETING from $(pwd)"`})}},
		llmtest.Reply{Text: "Done."},
	)
	steps := acpRunPlan(t, h, srv, work, map[string]any{"terminal": true},
		map[string]any{"op": "initialize"},
		map[string]any{"op": "new"},
		map[string]any{"op": "prompt", "text": "greet"},
	)
	var res struct {
		Data struct {
			Output string `json:"output"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(lastToolResult(t, srv, 2)), &res); err != nil || res.Data.Output != "hello editor from "+filepath.Join(work, "sub")+"\n" {
		t.Errorf("second command: %+v, %v", res, err)
	}
	turn := steps[2]
	if len(turn.Created) != 3 || turn.Created[1].Command != "bash" || turn.Created[1].Cwd != work || strings.Join(turn.Released, " ") != "term-1 term-2 term-3" {
		t.Fatalf("terminals created %+v, released %q", turn.Created, turn.Released)
	}
	var shown []string
	for _, u := range turn.Updates {
		if u.Kind == "tool_call_update" && u.ID == "t2" {
			shown = append(shown, u.Terminals...)
		}
	}
	if len(shown) == 0 || shown[0] != "term-3" {
		t.Errorf("the tool call shows terminals %q; want term-3", shown)
	}
	if _, err := os.Stat(turn.Created[0].Args[3]); !os.IsNotExist(err) {
		t.Errorf("the session's terminal state outlived hermes: %v", err)
	}
}
