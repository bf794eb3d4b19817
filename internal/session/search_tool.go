package session

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// searchToolDescription tells the model when to use session_search and
// when not to; it lives in a file so it reads as prose and is reviewed
// as such.
//
//go:embed search_tool.md
var searchToolDescription string

// Argument bounds of session_search. Results stay few and short: they
// land in the model's context, where every token costs.
const (
	searchDefaultLimit   = 5
	searchMaxLimit       = 20
	searchDefaultContext = 1
	searchMaxContext     = 5
	// searchOverfetch is how many hits per wanted result Search is asked
	// for, so enough distinct lineages remain after de-duplication.
	searchOverfetch = 5
	// readMaxMessages is the most messages reading one session returns:
	// its first readHead and the rest from its end.
	readMaxMessages = 40
	readHead        = 8
)

const searchToolParameters = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "Words to find: all must appear; OR between alternatives; \"quotes\" for a phrase; word* for a prefix. Chinese as written. Omit to read a session (with session_id) or list recent sessions."},
    "session_id": {"type": "string", "description": "Read this session, or with query search only inside it."},
    "role": {"type": "string", "enum": ["user", "assistant", "tool"], "description": "Only match messages from this role, e.g. user to skip tool output."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5, "description": "How many sessions (or hits inside one session) to return."},
    "context": {"type": "integer", "minimum": 0, "maximum": 5, "default": 1, "description": "Messages to show before and after each hit."},
    "include_current": {"type": "boolean", "default": false, "description": "Also search the current session."}
  },
  "additionalProperties": false
}`

// searchArgs are session_search's arguments.
type searchArgs struct {
	Query          string `json:"query"`
	SessionID      string `json:"session_id"`
	Role           string `json:"role"`
	Limit          *int   `json:"limit"`
	Context        *int   `json:"context"`
	IncludeCurrent bool   `json:"include_current"`
}

// searchTool is session_search over a Store.
type searchTool struct{ store Store }

// NewSearchTool returns the session_search tool: the agent's recall of
// past conversations, shaped after Hermes Agent's tool of that name
// (discovery by query, reading one session, browsing recent ones) but
// returning snippets and the messages around them instead of summaries,
// so it needs no second model.
func NewSearchTool(store Store) tool.Tool { return &searchTool{store: store} }

// Spec describes session_search. It only reads, so calls may run in
// parallel and be retried.
func (t *searchTool) Spec() tool.Spec {
	return tool.Spec{
		Name:         "session_search",
		Description:  strings.TrimSpace(searchToolDescription),
		Parameters:   json.RawMessage(searchToolParameters),
		Toolset:      "session_search",
		ParallelSafe: true,
		Idempotent:   true,
	}
}

// Call runs one of the three modes: search, read, or list recent.
func (t *searchTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a searchArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments: %v", err)
		}
	}
	limit := clampArg(a.Limit, searchDefaultLimit, 1, searchMaxLimit)
	around := clampArg(a.Context, searchDefaultContext, 0, searchMaxContext)
	switch a.Role {
	case "", string(llm.RoleUser), string(llm.RoleAssistant), string(llm.RoleTool):
	default:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "role must be user, assistant or tool, not %q", a.Role)
	}
	query := strings.TrimSpace(a.Query)
	sessionID := strings.TrimSpace(a.SessionID)

	var (
		out any
		err error
	)
	// A user's turn searches and reads that user's sessions alone;
	// another's, or the owner's, are answered as sessions that do not
	// exist.
	user := tool.InvocationFrom(ctx).User
	if sessionID != "" {
		err = t.mine(ctx, sessionID, user)
	}
	switch {
	case err != nil:
	case query != "":
		current := ""
		if !a.IncludeCurrent && sessionID == "" {
			current = tool.InvocationFrom(ctx).SessionID
		}
		out, err = t.search(ctx, query, SearchOptions{SessionID: sessionID, Role: llm.Role(a.Role), User: user}, limit, around, current)
	case sessionID != "":
		out, err = t.read(ctx, sessionID)
	default:
		out, err = t.recent(ctx, limit, tool.InvocationFrom(ctx).SessionID, user)
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, tool.Errorf(tool.CodeNotFound, "no session %q", sessionID)
	case err != nil:
		return nil, fmt.Errorf("session_search: %w", err)
	}
	return out, nil
}

// clampArg is an optional integer argument with a default, kept in range.
func clampArg(v *int, def, lo, hi int) int {
	if v == nil {
		return def
	}
	return min(max(*v, lo), hi)
}
