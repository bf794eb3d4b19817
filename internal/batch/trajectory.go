package batch

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// Turn is one value of a trajectory's conversations, in ShareGPT form:
// From is "system", "human", "gpt" or "tool".
type Turn struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

// ToolStat counts one tool's calls in an entry or a run.
type ToolStat struct {
	Count   int `json:"count"`
	Success int `json:"success"`
	Failure int `json:"failure"`
}

// Metadata says where an entry came from.
type Metadata struct {
	BatchRun  string `json:"run_name"`
	SessionID string `json:"session_id"`
	Timestamp string `json:"timestamp"`
	Model     string `json:"model"`
}

// Entry is one line of trajectories.jsonl: one prompt's turn, in the
// format of Hermes's batch runner, so that its tools (trajectory
// compression, data set upload) read hermes's output unchanged.
type Entry struct {
	PromptIndex   int      `json:"prompt_index"`
	Conversations []Turn   `json:"conversations"`
	Metadata      Metadata `json:"metadata"`
	// Completed is set when the model ended the turn itself.
	Completed bool `json:"completed"`
	// Partial marks a sample to leave out of training: the model called
	// a tool that does not exist (UnknownTools names them), or a guard
	// stopped the turn.
	Partial         bool                `json:"partial"`
	UnknownTools    []string            `json:"unknown_tools,omitempty"`
	APICalls        int                 `json:"api_calls"`
	ToolsetsUsed    []string            `json:"toolsets_used"`
	ToolStats       map[string]ToolStat `json:"tool_stats"`
	ToolErrorCounts map[string]int      `json:"tool_error_counts"`
	Stopped         string              `json:"stopped_reason"`
}

// conversation turns a session's system prompt, the tools it offered
// and its messages into ShareGPT turns the way Hermes does: the tools
// are listed in the system value inside <tools>, the assistant's
// reasoning goes in <think>, each tool call is a <tool_call> block in the
// gpt value, and the results of one round of calls are one tool value of
// <tool_response> blocks, each naming its call and tool.
func conversation(system string, specs []llm.ToolSpec, msgs []llm.Message) []Turn {
	var out []Turn
	if system != "" || len(specs) > 0 {
		out = append(out, Turn{From: "system", Value: systemValue(system, specs)})
	}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleSystem:
			continue
		case llm.RoleUser:
			out = append(out, Turn{From: "human", Value: m.Text()})
		case llm.RoleAssistant:
			out = append(out, Turn{From: "gpt", Value: gptValue(m)})
		case llm.RoleTool:
			block := toolResponse(m)
			if n := len(out); n > 0 && out[n-1].From == "tool" {
				out[n-1].Value += "\n" + block
			} else {
				out = append(out, Turn{From: "tool", Value: block})
			}
		}
	}
	return out
}

func systemValue(system string, specs []llm.ToolSpec) string {
	if len(specs) == 0 {
		return system
	}
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	type spec struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	list := make([]spec, len(specs))
	for i, s := range specs {
		list[i] = spec{Type: "function", Function: function{Name: s.Name, Description: s.Description, Parameters: s.Parameters}}
	}
	b, _ := json.Marshal(list)
	return strings.TrimSpace(system + "\n\n<tools>\n" + string(b) + "\n</tools>")
}

func gptValue(m llm.Message) string {
	var b strings.Builder
	if m.Reasoning != "" {
		b.WriteString("<think>\n" + m.Reasoning + "\n</think>\n")
	}
	b.WriteString(m.Text())
	for _, c := range m.ToolCalls {
		args := json.RawMessage(c.Arguments)
		if !json.Valid(args) {
			args, _ = json.Marshal(c.Arguments)
		}
		call, _ := json.Marshal(struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}{c.Name, args})
		b.WriteString("\n<tool_call>\n" + string(call) + "\n</tool_call>")
	}
	return strings.TrimPrefix(b.String(), "\n")
}

func toolResponse(m llm.Message) string {
	resp, _ := json.Marshal(struct {
		ToolCallID string `json:"tool_call_id"`
		Name       string `json:"name"`
		Content    string `json:"content"`
	}{m.ToolCallID, m.Name, m.Text()})
	return "<tool_response>\n" + string(resp) + "\n</tool_response>"
}

// newEntry is the entry of a finished turn.
func newEntry(l Line, run, sessionID, model string, toolsets []string, conv []Turn, res *agent.Result, now time.Time) Entry {
	e := Entry{
		PromptIndex:     l.Index,
		Conversations:   conv,
		Metadata:        Metadata{BatchRun: run, SessionID: sessionID, Timestamp: now.UTC().Format(time.RFC3339), Model: model},
		Completed:       res.Stopped == agent.StopDone,
		APICalls:        res.Iterations,
		ToolsetsUsed:    slices.Clone(toolsets),
		ToolStats:       map[string]ToolStat{},
		ToolErrorCounts: map[string]int{},
		Stopped:         string(res.Stopped),
	}
	if e.ToolsetsUsed == nil {
		e.ToolsetsUsed = []string{}
	}
	for _, c := range res.ToolCalls {
		s := e.ToolStats[c.Name]
		s.Count++
		if c.Status == tool.StatusOK {
			s.Success++
		} else {
			s.Failure++
			e.ToolErrorCounts[c.Name]++
		}
		e.ToolStats[c.Name] = s
		if c.Code == tool.CodeNotFound && !slices.Contains(e.UnknownTools, c.Name) {
			e.UnknownTools = append(e.UnknownTools, c.Name)
		}
	}
	e.Partial = len(e.UnknownTools) > 0 || !e.Completed
	return e
}
