package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/npmtest"
)

// acpUpdate is one session update as testdata/acp_client.mjs sums it up.
type acpUpdate struct {
	Kind     string   `json:"kind"`
	Text     string   `json:"text"`
	ID       string   `json:"id"`
	ToolKind string   `json:"toolKind"`
	Title    string   `json:"title"`
	Status   string   `json:"status"`
	Names    []string `json:"names"`
	Used     int      `json:"used"`
	Size     int      `json:"size"`
	// Locations, Diffs and Entries are those of tool calls and plans.
	Locations []struct {
		Path string `json:"path"`
		Line *int   `json:"line"`
	} `json:"locations"`
	Diffs []struct {
		Path    string  `json:"path"`
		OldText *string `json:"oldText"`
		NewText string  `json:"newText"`
	} `json:"diffs"`
	Entries []struct {
		Content  string `json:"content"`
		Priority string `json:"priority"`
		Status   string `json:"status"`
	} `json:"entries"`
	// Terminals are the editor's terminals a tool call shows.
	Terminals []string `json:"terminals"`
}

// acpStep is what the client printed for one step.
type acpStep struct {
	Op         string          `json:"op"`
	Error      string          `json:"error"`
	Result     json.RawMessage `json:"result"`
	SessionID  string          `json:"sessionId"`
	StopReason string          `json:"stopReason"`
	Updates    []acpUpdate     `json:"updates"`
	Asked      []struct {
		Title   string   `json:"title"`
		Options []string `json:"options"`
	} `json:"asked"`
	Sessions []string `json:"sessions"`
	// Usage holds the step's usage updates, which merged leaves out of
	// Updates.
	Usage []acpUpdate `json:"-"`
	// FsReads and FsWrites are the paths hermes read and wrote through
	// the client's fs methods.
	FsReads  []string `json:"fsReads"`
	FsWrites []string `json:"fsWrites"`
	// Created and Released are the terminals hermes had the client run.
	Created []struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Cwd     string   `json:"cwd"`
	} `json:"created"`
	Released []string `json:"released"`
}

// acpRun runs hermes acp in h under the official ACP client, working in
// dir, and returns what the client printed for each step.
func acpRun(t *testing.T, h *home, srv *llmtest.Server, dir string, steps ...map[string]any) []acpStep {
	t.Helper()
	return acpRunPlan(t, h, srv, dir, nil, steps...)
}

// acpRunPlan is acpRun with more of the client's plan (its "fs" or
// "terminal").
func acpRunPlan(t *testing.T, h *home, srv *llmtest.Server, dir string, more map[string]any, steps ...map[string]any) []acpStep {
	t.Helper()
	args := []string{"acp", "--api-mode", "chat_completions", "--base-url", srv.URL() + "/v1", "--model", "test-model", "--api-key", "sk-test-123456"}
	return acpRunArgs(t, h, dir, args, more, steps...)
}

// acpRunArgs is acpRunPlan with hermes's command line args, for a model
// set in config.yaml.
func acpRunArgs(t *testing.T, h *home, dir string, args []string, more map[string]any, steps ...map[string]any) []acpStep {
	t.Helper()
	node := npmtest.Node(t)
	sdk := npmtest.Package(t, "@agentclientprotocol/sdk")
	script, err := filepath.Abs(filepath.Join("testdata", "acp_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range h.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	p := map[string]any{"sdk": sdk, "command": hermesBin, "args": args, "env": env, "cwd": dir, "steps": steps}
	for k, v := range more {
		p[k] = v
	}
	plan, _ := json.Marshal(p)
	cmd := exec.Command(node, script, string(plan))
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s\n%s", err, stdout, stderr.String())
	}
	var out []acpStep
	sc := bufio.NewScanner(strings.NewReader(string(stdout)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s acpStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("client printed %q: %v", sc.Text(), err)
		}
		for _, u := range s.Updates {
			if u.Kind == "usage_update" {
				s.Usage = append(s.Usage, u)
			}
		}
		s.Updates = merged(s.Updates)
		if s.Error != "" {
			t.Errorf("%s: %s\n%s", s.Op, s.Error, stderr.String())
		}
		out = append(out, s)
	}
	if len(out) != len(steps) {
		t.Fatalf("client printed %d steps, want %d:\n%s\n%s", len(out), len(steps), stdout, stderr.String())
	}
	if strings.Contains(stderr.String(), "sk-test-123456") {
		t.Errorf("the API key reached the log:\n%s", stderr.String())
	}
	return out
}

// merged joins consecutive chunks of one kind, as an editor shows them,
// and leaves out the commands advertised, which arrive at any time, and
// the usage reports (acpStep.Usage).
func merged(us []acpUpdate) []acpUpdate {
	var out []acpUpdate
	for _, u := range us {
		if u.Kind == "available_commands_update" || u.Kind == "usage_update" {
			continue
		}
		if n := len(out); n > 0 && strings.HasSuffix(u.Kind, "_chunk") && out[n-1].Kind == u.Kind {
			out[n-1].Text += u.Text
			continue
		}
		out = append(out, u)
	}
	return out
}

// kinds lists the updates' kinds.
func kinds(us []acpUpdate) string {
	var k []string
	for _, u := range us {
		k = append(k, u.Kind)
	}
	return strings.Join(k, " ")
}

// toolUpdate returns the tool_call_update of a step, or fails.
func toolUpdate(t *testing.T, s acpStep) acpUpdate {
	t.Helper()
	for _, u := range s.Updates {
		if u.Kind == "tool_call_update" {
			return u
		}
	}
	t.Fatalf("%s: no tool_call_update in %s", s.Op, kinds(s.Updates))
	return acpUpdate{}
}

// TestACPWithOfficialClient runs hermes acp as Zed would, with the official
// TypeScript client: it streams a turn with reasoning and a tool call, asks
// before dangerous commands and honours allow and reject, never asks about
// a hardline one, stops a turn on cancel, and loads the session again.
func TestACPWithOfficialClient(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	allowed, rejected := filepath.Join(work, "allowed"), filepath.Join(work, "rejected")
	for _, d := range []string{allowed, rejected} {
		if err := os.MkdirAll(filepath.Join(d, "inner"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{Reasoning: "Let me look.", Text: "Listing.", ToolCalls: []llm.ToolCall{terminalCall("echo hello-acp")}},
		llmtest.Reply{Text: "Done."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + allowed)}},
		llmtest.Reply{Text: "Removed."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + rejected)}},
		llmtest.Reply{Text: "Kept."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("mkfs.ext4 /dev/hermes-test-no-such-device")}},
		llmtest.Reply{Text: "Refused."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("sleep 30")}},
		llmtest.Reply{Text: "still here"},
	)
	steps := acpRun(t, h, srv, work,
		map[string]any{"op": "initialize"},
		map[string]any{"op": "new"},
		map[string]any{"op": "prompt", "text": "say hello"},
		map[string]any{"op": "prompt", "text": "delete allowed", "permission": "once"},
		map[string]any{"op": "prompt", "text": "delete rejected", "permission": "deny"},
		map[string]any{"op": "prompt", "text": "format a disk", "permission": "once"},
		map[string]any{"op": "prompt", "text": "wait", "cancel_on": "tool_call"},
		map[string]any{"op": "prompt", "text": "are you there"},
		map[string]any{"op": "load"},
		map[string]any{"op": "list"},
	)
	var initRes struct {
		AgentCapabilities struct {
			LoadSession bool `json:"loadSession"`
		} `json:"agentCapabilities"`
		AuthMethods []any `json:"authMethods"`
	}
	if err := json.Unmarshal(steps[0].Result, &initRes); err != nil || !initRes.AgentCapabilities.LoadSession || initRes.AuthMethods == nil {
		t.Errorf("initialize: %s", steps[0].Result)
	}
	id := steps[1].SessionID
	if id == "" {
		t.Fatalf("session/new gave no session id")
	}

	hello := steps[2]
	if hello.StopReason != "end_turn" || kinds(hello.Updates) != "agent_thought_chunk agent_message_chunk tool_call tool_call_update agent_message_chunk" {
		t.Errorf("prompt: stop %q, updates %s", hello.StopReason, kinds(hello.Updates))
	}
	if call := hello.Updates[2]; call.ToolKind != "execute" || !strings.Contains(call.Title, "echo hello-acp") || call.Status != "in_progress" {
		t.Errorf("tool_call = %+v", call)
	}
	if u := toolUpdate(t, hello); u.Status != "completed" || !strings.Contains(u.Text, "hello-acp") {
		t.Errorf("tool_call_update = %+v", u)
	}

	allow := steps[3]
	if len(allow.Asked) != 1 || strings.Join(allow.Asked[0].Options, ",") != "once,session,always,deny" {
		t.Errorf("allow: asked %+v", allow.Asked)
	}
	if _, err := os.Stat(allowed); !os.IsNotExist(err) {
		t.Errorf("the command allowed once did not run: %v", err)
	}
	deny := steps[4]
	if len(deny.Asked) != 1 || toolUpdate(t, deny).Status != "failed" {
		t.Errorf("deny: asked %+v, update %+v", deny.Asked, toolUpdate(t, deny))
	}
	if _, err := os.Stat(rejected); err != nil {
		t.Errorf("the rejected command ran: %v", err)
	}
	hard := steps[5]
	if len(hard.Asked) != 0 || toolUpdate(t, hard).Status != "failed" {
		t.Errorf("hardline: asked %+v, update %+v", hard.Asked, toolUpdate(t, hard))
	}

	if steps[6].StopReason != "cancelled" {
		t.Errorf("cancel: stop reason %q", steps[6].StopReason)
	}
	after := steps[7]
	if after.StopReason != "end_turn" || len(after.Updates) == 0 || after.Updates[len(after.Updates)-1].Text != "still here" {
		t.Errorf("after cancel: %+v", after)
	}

	load := steps[8]
	var users []string
	for _, u := range load.Updates {
		if u.Kind == "user_message_chunk" {
			users = append(users, u.Text)
		}
	}
	if len(users) != 6 || users[0] != "say hello" || users[5] != "are you there" {
		t.Errorf("load replayed the user's messages %q; updates %s", users, kinds(load.Updates))
	}
	if len(steps[9].Sessions) != 1 || steps[9].Sessions[0] != id {
		t.Errorf("list = %v; want [%s]", steps[9].Sessions, id)
	}
}
