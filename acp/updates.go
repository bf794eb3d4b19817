package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/tool"
)

// maxToolContent bounds the tool output shown in the editor; the model
// still gets all of it.
const maxToolContent = 16 << 10

// maxTitle bounds, in characters, the command or path a tool call's
// title shows.
const maxTitle = 120

// updater is the Sink of one turn: it sends each event to the editor as
// a session/update notification, and remembers the tool calls running so
// that a permission request can point at the call that asks.
type updater struct {
	conn *acpsdk.AgentSideConnection
	id   acpsdk.SessionId
	log  *slog.Logger

	mu sync.Mutex
	// running maps running tool call ids to their arguments.
	running map[string]string
}

// newUpdater returns the Sink of a turn in session id.
func newUpdater(conn *acpsdk.AgentSideConnection, id string, log *slog.Logger) *updater {
	return &updater{conn: conn, id: acpsdk.SessionId(id), log: log, running: make(map[string]string)}
}

// Event sends e to the editor.
func (u *updater) Event(e agent.Event) {
	switch e.Kind {
	case agent.EventText:
		u.send(acpsdk.UpdateAgentMessageText(e.Text))
	case agent.EventReasoning:
		u.send(acpsdk.UpdateAgentThoughtText(e.Text))
	case agent.EventToolStarted:
		u.started(e.Tool)
	case agent.EventToolFinished:
		u.finished(e.Tool)
	case agent.EventCompressed:
		if e.Err == nil && e.Text != "" {
			u.send(acpsdk.UpdateAgentThoughtText("(" + e.Text + ")"))
		}
	case agent.EventError:
		if e.Err != nil {
			u.send(acpsdk.UpdateAgentMessageText("\n\nhermes: " + e.Err.Error()))
		}
	}
}

// started announces a tool call with its kind and a title.
func (u *updater) started(t *agent.ToolEvent) {
	if t == nil {
		return
	}
	u.mu.Lock()
	u.running[t.Call.ID] = t.Call.Arguments
	u.mu.Unlock()
	u.send(acpsdk.StartToolCall(acpsdk.ToolCallId(t.Call.ID), title(t.Call.Name, t.Call.Arguments),
		acpsdk.WithStartKind(kind(t.Call.Name)),
		acpsdk.WithStartStatus(acpsdk.ToolCallStatusInProgress),
		acpsdk.WithStartRawInput(rawJSON(t.Call.Arguments))))
}

// finished reports a tool call's status and what it returned.
func (u *updater) finished(t *agent.ToolEvent) {
	if t == nil {
		return
	}
	u.mu.Lock()
	delete(u.running, t.Call.ID)
	u.mu.Unlock()
	status := acpsdk.ToolCallStatusCompleted
	if t.Result.Status == tool.StatusError {
		status = acpsdk.ToolCallStatusFailed
	}
	content := t.Content
	if len(content) > maxToolContent {
		content = content[:maxToolContent] + fmt.Sprintf("\n… (%d more bytes)", len(content)-maxToolContent)
	}
	u.send(acpsdk.UpdateToolCall(acpsdk.ToolCallId(t.Call.ID),
		acpsdk.WithUpdateStatus(status),
		acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(content))})))
}

// callFor returns the running tool call whose arguments hold command, or
// "" when none does.
func (u *updater) callFor(command string) string {
	quoted, _ := json.Marshal(command)
	inner := strings.Trim(string(quoted), `"`)
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, args := range u.running {
		if strings.Contains(args, inner) {
			return id
		}
	}
	return ""
}

// send writes one update; a failure means the editor is gone, which the
// turn learns from its cancelled context, so it is only logged.
func (u *updater) send(up acpsdk.SessionUpdate) {
	err := u.conn.SessionUpdate(context.Background(), acpsdk.SessionNotification{SessionId: u.id, Update: up})
	if err != nil {
		u.log.Warn("acp: sending a session update failed", "session_id", string(u.id), "error", err)
	}
}

// kind is the ACP tool kind of a hermes tool, which editors use for its
// icon.
func kind(name string) acpsdk.ToolKind {
	switch name {
	case "read_file":
		return acpsdk.ToolKindRead
	case "write_file", "patch":
		return acpsdk.ToolKindEdit
	case "search_files", "session_search":
		return acpsdk.ToolKindSearch
	case "terminal", "process":
		return acpsdk.ToolKindExecute
	case "web_search", "web_extract", "http_request":
		return acpsdk.ToolKindFetch
	}
	if strings.HasPrefix(name, "browser") {
		return acpsdk.ToolKindFetch
	}
	return acpsdk.ToolKindOther
}

// title is what the editor shows for a call: the command, path, query or
// URL it is about when its arguments have one, else the tool's name.
func title(name, args string) string {
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	for _, k := range []string{"command", "path", "query", "url", "pattern"} {
		if v, ok := a[k].(string); ok && v != "" {
			if r := []rune(v); len(r) > maxTitle {
				v = string(r[:maxTitle]) + "…"
			}
			return name + ": " + v
		}
	}
	return name
}

// rawJSON is args as JSON for the editor, or as a string when it is not
// valid JSON.
func rawJSON(args string) any {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	return args
}
