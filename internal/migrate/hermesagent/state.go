package hermesagent

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net/url"
	"time"

	_ "modernc.org/sqlite" // Hermes's state.db is SQLite
)

// hermesSession is a row of Hermes's sessions table, as far as hermes
// keeps it.
type hermesSession struct {
	id, source, model, title, parent, endReason, cwd, systemPrompt string

	started, ended                                  float64
	input, output, cacheRead, cacheWrite, reasoning int64
	cost                                            float64
}

// hermesMessage is a live row of Hermes's messages table.
type hermesMessage struct {
	role, content, toolCalls, toolCallID, toolName, finishReason, reasoning string

	timestamp float64
	tokens    int64
}

// openState opens Hermes's state.db read-only: nothing of Hermes's is
// written, not even its journal mode.
func openState(ctx context.Context, path string) (*sql.DB, error) {
	u := url.URL{Path: path}
	db, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'messages')`).Scan(&n); err != nil || n != 2 {
		db.Close()
		if err == nil {
			err = fmt.Errorf("it has no sessions and messages tables")
		}
		return nil, fmt.Errorf("%s is not Hermes Agent's state.db: %w", path, err)
	}
	return db, nil
}

// readSessions returns every session, parents before the sessions that
// continue them, then by start.
func readSessions(ctx context.Context, db *sql.DB) ([]hermesSession, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, coalesce(source, ''), coalesce(model, ''), coalesce(title, ''),
	coalesce(parent_session_id, ''), coalesce(end_reason, ''), coalesce(cwd, ''), coalesce(system_prompt, ''),
	coalesce(started_at, 0), coalesce(ended_at, 0),
	coalesce(input_tokens, 0), coalesce(output_tokens, 0), coalesce(cache_read_tokens, 0), coalesce(cache_write_tokens, 0),
	coalesce(reasoning_tokens, 0), coalesce(actual_cost_usd, estimated_cost_usd, 0)
FROM sessions ORDER BY started_at, id`)
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	defer rows.Close()
	var out []hermesSession
	for rows.Next() {
		var s hermesSession
		if err := rows.Scan(&s.id, &s.source, &s.model, &s.title, &s.parent, &s.endReason, &s.cwd, &s.systemPrompt,
			&s.started, &s.ended, &s.input, &s.output, &s.cacheRead, &s.cacheWrite, &s.reasoning, &s.cost); err != nil {
			return nil, fmt.Errorf("read sessions: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	return parentsFirst(out), nil
}

// parentsFirst orders sessions so that each comes after its parent, keeping
// the order otherwise; a parent that is not there is dropped from its
// child (Hermes's foreign key is not enforced on old files).
func parentsFirst(ss []hermesSession) []hermesSession {
	byID := make(map[string]int, len(ss))
	for i, s := range ss {
		byID[s.id] = i
	}
	out := make([]hermesSession, 0, len(ss))
	state := make([]byte, len(ss)) // 0 new, 1 visiting, 2 done
	var visit func(i int)
	visit = func(i int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		if p, ok := byID[ss[i].parent]; ok && state[p] == 0 {
			visit(p)
		} else if !ok || state[p] == 1 {
			ss[i].parent = "" // missing, or a cycle
		}
		state[i] = 2
		out = append(out, ss[i])
	}
	for i := range ss {
		visit(i)
	}
	return out
}

// readMessages returns a session's live messages in Hermes's order (id):
// the rows a rewind or an in-place compaction retired (active = 0) are
// not part of the conversation.
func readMessages(ctx context.Context, db *sql.DB, sessionID string) ([]hermesMessage, error) {
	rows, err := db.QueryContext(ctx, `SELECT role, coalesce(content, ''), coalesce(tool_calls, ''), coalesce(tool_call_id, ''),
	coalesce(tool_name, ''), coalesce(finish_reason, ''), coalesce(reasoning, ''), coalesce(timestamp, 0), coalesce(token_count, 0)
FROM messages WHERE session_id = ? AND coalesce(active, 1) = 1 ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read the messages of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []hermesMessage
	for rows.Next() {
		var m hermesMessage
		if err := rows.Scan(&m.role, &m.content, &m.toolCalls, &m.toolCallID, &m.toolName, &m.finishReason, &m.reasoning,
			&m.timestamp, &m.tokens); err != nil {
			return nil, fmt.Errorf("read the messages of %s: %w", sessionID, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the messages of %s: %w", sessionID, err)
	}
	return out, nil
}

// epoch is Hermes's REAL seconds since the epoch as a time, to the
// microsecond; zero stays the zero time.
func epoch(sec float64) time.Time {
	if sec <= 0 {
		return time.Time{}
	}
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(math.Round(frac*1e6))*1e3).UTC()
}
