package sqlite

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// messageRow is a message in its column form. The text goes to content
// (what the indexes see); parts keeps the exact content parts only when
// content alone cannot restore them (images, several text parts), so the
// common text message costs no JSON at all.
type messageRow struct {
	role            string
	content         sql.NullString
	parts           sql.NullString
	toolCalls       sql.NullString
	toolCallID      sql.NullString
	toolName        sql.NullString
	finishReason    sql.NullString
	reasoning       sql.NullString
	reasoningBlocks sql.NullString
	tokens          int64
	timestamp       int64
	// cjk says whether content or tool calls hold CJK text, which puts
	// the message in the trigram index too.
	cjk bool
}

// encodeMessage turns m into its columns, with at as its timestamp.
func encodeMessage(m *session.Message, at time.Time) (messageRow, error) {
	r := messageRow{
		role:         string(m.Role),
		toolCallID:   nullString(m.ToolCallID),
		toolName:     nullString(m.Name),
		finishReason: nullString(m.FinishReason),
		reasoning:    nullString(m.Reasoning),
		tokens:       int64(m.Tokens),
		timestamp:    toMicros(at),
	}
	switch {
	case len(m.Content) == 0:
	case len(m.Content) == 1 && m.Content[0] == llm.TextPart(m.Content[0].Text):
		r.content = sql.NullString{String: m.Content[0].Text, Valid: true}
	default:
		r.content = nullString(joinText(m.Content))
		js, err := marshal(m.Content)
		if err != nil {
			return r, fmt.Errorf("encode content parts: %w", err)
		}
		r.parts = js
	}
	var err error
	if len(m.ToolCalls) > 0 {
		if r.toolCalls, err = marshal(m.ToolCalls); err != nil {
			return r, fmt.Errorf("encode tool calls: %w", err)
		}
	}
	if len(m.ReasoningBlocks) > 0 {
		if r.reasoningBlocks, err = marshal(m.ReasoningBlocks); err != nil {
			return r, fmt.Errorf("encode reasoning blocks: %w", err)
		}
	}
	r.cjk = hasCJK(r.content.String) || hasCJK(r.toolCalls.String)
	return r, nil
}

// decode turns the columns back into a message.
func (r *messageRow) decode(id int64, sessionID string) (session.Message, error) {
	m := session.Message{
		ID:           id,
		SessionID:    sessionID,
		FinishReason: r.finishReason.String,
		Tokens:       int(r.tokens),
		CreatedAt:    fromMicros(r.timestamp),
	}
	m.Role = llm.Role(r.role)
	m.ToolCallID = r.toolCallID.String
	m.Name = r.toolName.String
	m.Reasoning = r.reasoning.String
	switch {
	case r.parts.Valid:
		if err := json.Unmarshal([]byte(r.parts.String), &m.Content); err != nil {
			return m, fmt.Errorf("decode content parts of message %d: %w", id, err)
		}
	case r.content.Valid:
		m.Content = []llm.Part{llm.TextPart(r.content.String)}
	}
	if r.toolCalls.Valid {
		if err := json.Unmarshal([]byte(r.toolCalls.String), &m.ToolCalls); err != nil {
			return m, fmt.Errorf("decode tool calls of message %d: %w", id, err)
		}
	}
	if r.reasoningBlocks.Valid {
		if err := json.Unmarshal([]byte(r.reasoningBlocks.String), &m.ReasoningBlocks); err != nil {
			return m, fmt.Errorf("decode reasoning blocks of message %d: %w", id, err)
		}
	}
	return m, nil
}

// joinText is the searchable text of mixed parts: text parts one per
// line, so words of adjacent parts do not run together in the index.
func joinText(parts []llm.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type != llm.PartText || p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// marshal encodes v as JSON without HTML escaping, so "<", ">" and "&"
// in tool arguments stay searchable as themselves.
func marshal(v any) (sql.NullString, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return sql.NullString{}, err
	}
	return sql.NullString{String: strings.TrimSuffix(b.String(), "\n"), Valid: true}, nil
}

// nullString stores "" as NULL.
func nullString(s string) sql.NullString {
	return sql.NullString{String: s, Valid: s != ""}
}

// toMicros is t as stored: microseconds since the Unix epoch.
func toMicros(t time.Time) int64 { return t.UnixMicro() }

// fromMicros is a stored time, in UTC.
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// stamp is t as the store keeps it: UTC, to the microsecond, with no
// monotonic reading, so the value written back to callers equals the one
// read later.
func stamp(t time.Time) time.Time { return fromMicros(toMicros(t)) }
