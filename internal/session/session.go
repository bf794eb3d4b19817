// Package session defines what hermes remembers of a conversation: the
// Session record, its stored messages, and the Store interface every
// storage engine implements (session/sqlite is the default; the
// session/storetest suite holds them all to the same behaviour).
package session

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

// ErrNotFound is returned when a session or message id does not exist.
var ErrNotFound = errors.New("session: not found")

// Session is one conversation's metadata. Token counts and cost are totals
// over every model call made in the session.
type Session struct {
	ID     string `json:"id"`
	Source string `json:"source"` // cli, telegram, api, cron, ...
	Title  string `json:"title,omitempty"`
	Model  string `json:"model,omitempty"`
	// ParentID links a session to the one it continues (after compression
	// or a fork); sessions sharing a root form one lineage.
	ParentID  string    `json:"parent_session_id,omitempty"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
	EndReason string    `json:"end_reason,omitempty"`
	Cwd       string    `json:"cwd,omitempty"`
	// Agent is the role agent the session runs as; empty for none.
	Agent string `json:"agent,omitempty"`
	// User is the id of the user the session belongs to (config's
	// users:), and Tenant that user's tenant; both empty for the local
	// owner. Children (compression, delegation) keep their parent's.
	User   string `json:"user,omitempty"`
	Tenant string `json:"tenant,omitempty"`

	MessageCount  int `json:"message_count"`
	ToolCallCount int `json:"tool_call_count"`

	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	CostUSD          float64 `json:"estimated_cost_usd"`
}

// MarshalJSON adds total_tokens (input plus output) to the session's
// fields, as every JSON hermes prints has it.
func (s Session) MarshalJSON() ([]byte, error) {
	type fields Session
	return json.Marshal(struct {
		fields
		TotalTokens int64 `json:"total_tokens"`
	}{fields(s), s.InputTokens + s.OutputTokens})
}

// Message is a canonical message as stored, with its place and bookkeeping.
type Message struct {
	// ID is assigned by the store on append, increasing within a store.
	ID        int64  `json:"id"`
	SessionID string `json:"session_id"`
	llm.Message
	FinishReason string    `json:"finish_reason,omitempty"`
	Tokens       int       `json:"token_count,omitempty"`
	CreatedAt    time.Time `json:"timestamp"`
}

// Usage is what one model call adds to a session's totals.
type Usage struct {
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	ReasoningTokens  int64
	CostUSD          float64
}

// UsageQuery filters DailyUsage. Days are "2006-01-02" in UTC, both
// ends included; empty fields do not filter.
type UsageQuery struct {
	From, To     string
	User, Tenant string
}

// DailyUsage is one UTC day's usage of one user (of one tenant) with one
// model, summed over every model call; User and Tenant are empty for the
// local owner.
type DailyUsage struct {
	Day          string  `json:"day"`
	User         string  `json:"user,omitempty"`
	Tenant       string  `json:"tenant,omitempty"`
	Model        string  `json:"model"`
	Calls        int64   `json:"calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// ListOptions filters List. Zero values mean no filter; Limit 0 means 20.
type ListOptions struct {
	Source string
	// ParentID, when set, lists only the sessions continuing that one
	// (after a compression or a fork).
	ParentID string
	// User and Tenant, when set, list only that user's or tenant's
	// sessions; Owner lists only the local owner's (no user).
	User, Tenant string
	Owner        bool
	Limit        int
	Offset       int
}

// SearchOptions narrows Search. Limit 0 means 20.
type SearchOptions struct {
	SessionID string
	Source    string
	Role      llm.Role
	// User and Tenant, when set, search only that user's or tenant's
	// sessions.
	User, Tenant string
	Limit        int
}

// Hit is one message matching a search, with a short snippet around the
// match and enough of its session to show where it came from.
type Hit struct {
	SessionID    string    `json:"session_id"`
	MessageID    int64     `json:"message_id"`
	Role         llm.Role  `json:"role"`
	ToolName     string    `json:"tool_name,omitempty"`
	Snippet      string    `json:"snippet"`
	CreatedAt    time.Time `json:"timestamp"`
	SessionTitle string    `json:"session_title,omitempty"`
	// RootID is the first session of the hit's lineage, so callers can
	// keep one hit per lineage.
	RootID string `json:"root_session_id"`
}

// Stats summarizes the whole store.
type Stats struct {
	Sessions         int64   `json:"sessions"`
	Messages         int64   `json:"messages"`
	ToolCalls        int64   `json:"tool_calls"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	CostUSD          float64 `json:"estimated_cost_usd"`
	// BySource counts sessions per source.
	BySource map[string]int64 `json:"by_source"`
}

// MarshalJSON adds total_tokens (input plus output) to the totals.
func (s Stats) MarshalJSON() ([]byte, error) {
	type fields Stats
	return json.Marshal(struct {
		fields
		TotalTokens int64 `json:"total_tokens"`
	}{fields(s), s.InputTokens + s.OutputTokens})
}

// Store keeps sessions and their messages. Implementations must be safe
// for concurrent use by several goroutines and, for file-backed stores,
// by several processes.
type Store interface {
	// Create stores a new session. An empty ID gets a fresh one and an
	// empty StartedAt the current time; both are written back into s.
	Create(ctx context.Context, s *Session) error
	// Get returns one session, or ErrNotFound.
	Get(ctx context.Context, id string) (*Session, error)
	// Latest returns the most recently started session, of source when
	// source is not empty, or ErrNotFound.
	Latest(ctx context.Context, source string) (*Session, error)
	// List returns sessions, most recently started first.
	List(ctx context.Context, opt ListOptions) ([]Session, error)
	// Append adds messages to a session in one transaction, assigning
	// their IDs (written back into msgs) and updating the session's
	// message and tool-call counts. Messages appended in one call are
	// kept all or none, whatever stops the process.
	Append(ctx context.Context, sessionID string, msgs ...*Message) error
	// Record is Append that also adds u to the session's totals, in the
	// same transaction (AddUsage alone when msgs is empty).
	Record(ctx context.Context, sessionID string, u Usage, msgs ...*Message) error
	// Messages returns a session's messages in order.
	Messages(ctx context.Context, sessionID string) ([]Message, error)
	// Around returns up to n messages before and n after message id in
	// its session, the message itself included.
	Around(ctx context.Context, messageID int64, n int) ([]Message, error)
	// AddUsage adds one model call's usage to a session's totals, and
	// to the day's usage of its user, tenant and model (DailyUsage).
	AddUsage(ctx context.Context, sessionID string, u Usage) error
	// DailyUsage returns usage by UTC day, user, tenant and model.
	DailyUsage(ctx context.Context, q UsageQuery) ([]DailyUsage, error)
	// SetTitle sets a session's title.
	SetTitle(ctx context.Context, sessionID, title string) error
	// SetSystemPrompt records the system prompt the session started with;
	// SystemPrompt returns it ("" when none was recorded). A session keeps
	// its prompt for life, even across processes, so the provider's prompt
	// cache keeps hitting and memory written during it shows only in the
	// next session.
	SetSystemPrompt(ctx context.Context, sessionID, prompt string) error
	SystemPrompt(ctx context.Context, sessionID string) (string, error)
	// End marks a session ended with a reason ("done", "interrupted", ...).
	End(ctx context.Context, sessionID, reason string) error
	// Search finds messages by full-text query: words through the
	// unicode61 index, CJK and substrings through the trigram index, and
	// 1–2 character CJK queries by LIKE. Best matches first.
	Search(ctx context.Context, query string, opt SearchOptions) ([]Hit, error)
	// Delete removes a session and its messages (and their index rows).
	Delete(ctx context.Context, sessionID string) error
	// Rewind removes the session's messages after message afterID (all
	// of them for 0), with their index rows, and lowers the session's
	// message and tool-call counts to match, in one transaction; it
	// returns how many it removed. Token totals and cost stay: those
	// calls were made and paid for. A session that does not exist is
	// ErrNotFound. Undoing the last exchange of a chat is what it is for.
	Rewind(ctx context.Context, sessionID string, afterID int64) (removed int, err error)
	// Stats summarizes the store.
	Stats(ctx context.Context) (Stats, error)
	// Close releases the store.
	Close() error
}
