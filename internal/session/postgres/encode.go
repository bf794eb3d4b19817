package postgres

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// messageRow is a message in its column form: the parts, tool calls and
// reasoning blocks as JSON (NULL when there are none, so nil slices come
// back nil), and searchText, what search sees.
type messageRow struct {
	role, toolCallID, toolName, finishReason, reasoning string
	parts, toolCalls, reasoningBlocks                   sql.NullString
	tokens, createdAt                                   int64
	searchText                                          string
}

// encodeMessage turns m into its columns.
func encodeMessage(m *session.Message) (messageRow, error) {
	r := messageRow{
		role: text(string(m.Role)), toolCallID: text(m.ToolCallID), toolName: text(m.Name),
		finishReason: text(m.FinishReason), reasoning: text(m.Reasoning),
		tokens: int64(m.Tokens), createdAt: toMicros(m.CreatedAt),
	}
	var err error
	if r.parts, err = marshal(m.Content); err != nil {
		return r, fmt.Errorf("encode content parts: %w", err)
	}
	if r.toolCalls, err = marshal(m.ToolCalls); err != nil {
		return r, fmt.Errorf("encode tool calls: %w", err)
	}
	if r.reasoningBlocks, err = marshal(m.ReasoningBlocks); err != nil {
		return r, fmt.Errorf("encode reasoning blocks: %w", err)
	}
	r.searchText = searchText(m, r.toolCalls.String)
	return r, nil
}

// searchText is what search finds a message by: its text parts, its
// tool calls (names and arguments, as JSON) and the name of the tool it
// is the result of, one per line so words of adjacent pieces do not run
// together.
func searchText(m *session.Message, toolCalls string) string {
	var b strings.Builder
	line := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	for _, p := range m.Content {
		if p.Type == llm.PartText {
			line(p.Text)
		}
	}
	line(toolCalls)
	line(m.Name)
	return text(b.String())
}

// decode turns the columns back into message id of sessionID.
func (r *messageRow) decode(id int64, sessionID string) (session.Message, error) {
	m := session.Message{
		ID: id, SessionID: sessionID, FinishReason: r.finishReason,
		Tokens: int(r.tokens), CreatedAt: fromMicros(r.createdAt),
	}
	m.Role = llm.Role(r.role)
	m.ToolCallID, m.Name, m.Reasoning = r.toolCallID, r.toolName, r.reasoning
	for _, f := range []struct {
		what string
		col  sql.NullString
		into any
	}{
		{"content parts", r.parts, &m.Content},
		{"tool calls", r.toolCalls, &m.ToolCalls},
		{"reasoning blocks", r.reasoningBlocks, &m.ReasoningBlocks},
	} {
		if !f.col.Valid {
			continue
		}
		if err := json.Unmarshal([]byte(f.col.String), f.into); err != nil {
			return m, fmt.Errorf("decode %s of message %d: %w", f.what, id, err)
		}
	}
	return m, nil
}

// marshal encodes a slice as JSON without HTML escaping, so "<", ">"
// and "&" in tool arguments stay searchable as themselves; an empty
// slice is NULL.
func marshal[T any](v []T) (sql.NullString, error) {
	if len(v) == 0 {
		return sql.NullString{}, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return sql.NullString{}, err
	}
	return sql.NullString{String: strings.TrimSuffix(b.String(), "\n"), Valid: true}, nil
}
