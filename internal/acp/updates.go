package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/files"
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
	// workdir is the session's directory, which relative paths in tool
	// calls start from.
	workdir string

	mu sync.Mutex
	// running maps running tool call ids to their arguments.
	running map[string]string
	// changes holds the file changes of running calls, by call id.
	changes map[string][]files.Change
	// planned is the last plan sent in this turn.
	planned *[]acpsdk.PlanEntry
	// terminals holds the editor's terminals running calls' commands,
	// by call id.
	terminals map[string][]string
}

// newUpdater returns the Sink of a turn in session id.
func newUpdater(conn *acpsdk.AgentSideConnection, id string, log *slog.Logger) *updater {
	return &updater{conn: conn, id: acpsdk.SessionId(id), log: log, running: make(map[string]string), changes: make(map[string][]files.Change)}
}

// changed records a file change of a running call, which its finishing
// update shows as a diff. It is the turn's files.Hooks.Changed.
func (u *updater) changed(c files.Change) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.running[c.CallID]; ok {
		u.changes[c.CallID] = append(u.changes[c.CallID], c)
	}
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

// started announces a tool call with its kind, a title and the files it
// is about.
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
		acpsdk.WithStartLocations(locations(t.Call.Name, t.Call.Arguments, u.workdir)),
		acpsdk.WithStartRawInput(rawJSON(t.Call.Arguments))))
}

// finished reports a tool call's status and what it returned: the diffs
// of the files it changed before its text, the files and lines a search
// found or a patch changed, and a todo list as the session's plan.
func (u *updater) finished(t *agent.ToolEvent) {
	if t == nil {
		return
	}
	u.mu.Lock()
	delete(u.running, t.Call.ID)
	changes := u.changes[t.Call.ID]
	delete(u.changes, t.Call.ID)
	terms := u.terminals[t.Call.ID]
	delete(u.terminals, t.Call.ID)
	u.mu.Unlock()
	status := acpsdk.ToolCallStatusCompleted
	if t.Result.Status == tool.StatusError {
		status = acpsdk.ToolCallStatusFailed
	}
	content := t.Content
	if len(content) > maxToolContent {
		content = content[:maxToolContent] + fmt.Sprintf("\n… (%d more bytes)", len(content)-maxToolContent)
	}
	var out []acpsdk.ToolCallContent
	var locs []acpsdk.ToolCallLocation
	for _, id := range terms {
		out = append(out, acpsdk.ToolTerminalRef(id))
	}
	for _, c := range changes {
		out = append(out, diffContent(c))
		locs = append(locs, acpsdk.ToolCallLocation{Path: c.Path, Line: acpsdk.Ptr(c.Line)})
	}
	out = append(out, acpsdk.ToolContent(acpsdk.TextBlock(content)))
	opts := []acpsdk.ToolCallUpdateOpt{acpsdk.WithUpdateStatus(status), acpsdk.WithUpdateContent(out)}
	if status == acpsdk.ToolCallStatusCompleted && t.Call.Name == "search_files" {
		locs = searchLocations(t.Result.Data, u.workdir)
	}
	if len(locs) > 0 {
		opts = append(opts, acpsdk.WithUpdateLocations(locs))
	}
	u.send(acpsdk.UpdateToolCall(acpsdk.ToolCallId(t.Call.ID), opts...))
	if status == acpsdk.ToolCallStatusCompleted && t.Call.Name == "todo" {
		u.plan(t.Result.Data)
	}
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
// icon. hermes has no tool that only deletes or moves files (the
// terminal does, as execute), so ACP's delete and move kinds are unused.
func kind(name string) acpsdk.ToolKind {
	switch name {
	case "read_file", "vision_analyze":
		return acpsdk.ToolKindRead
	case "write_file", "patch":
		return acpsdk.ToolKindEdit
	case "search_files", "session_search", "kb_search":
		return acpsdk.ToolKindSearch
	case "terminal", "process", "execute_code":
		return acpsdk.ToolKindExecute
	case "todo":
		return acpsdk.ToolKindThink
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
