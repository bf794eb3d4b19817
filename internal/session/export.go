package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

// WriteJSONL writes a session as JSON lines: the session record first, as
// {"session": {...}}, then each message on a line of its own.
func WriteJSONL(w io.Writer, s *Session, msgs []Message) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Session *Session `json:"session"`
	}{s}); err != nil {
		return err
	}
	for i := range msgs {
		if err := enc.Encode(msgs[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteMarkdown writes a session as a transcript a person can read: a
// heading, the session's facts, then each message, tool calls and results
// in code blocks.
func WriteMarkdown(w io.Writer, s *Session, msgs []Message) error {
	bw := bufio.NewWriter(w)
	title := s.Title
	if title == "" {
		title = "Session " + s.ID
	}
	fmt.Fprintf(bw, "# %s\n\n", title)
	fmt.Fprintf(bw, "- id: %s\n- source: %s\n- model: %s\n- started: %s\n", s.ID, s.Source, s.Model, s.StartedAt.Local().Format(time.DateTime))
	if s.ParentID != "" {
		fmt.Fprintf(bw, "- continues: %s\n", s.ParentID)
	}
	fmt.Fprintf(bw, "- messages: %d, tool calls: %d, tokens in/out: %d/%d\n", s.MessageCount, s.ToolCallCount, s.InputTokens, s.OutputTokens)
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			fmt.Fprintf(bw, "\n## User\n\n%s\n", m.Text())
		case llm.RoleAssistant:
			fmt.Fprintf(bw, "\n## hermes\n\n")
			if t := m.Text(); t != "" {
				fmt.Fprintf(bw, "%s\n", t)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(bw, "\n→ `%s` %s\n", c.Name, fence(c.Arguments))
			}
		case llm.RoleTool:
			fmt.Fprintf(bw, "\n← `%s` result:\n%s\n", m.Name, fence(m.Text()))
		default:
			fmt.Fprintf(bw, "\n## %s\n\n%s\n", m.Role, m.Text())
		}
	}
	return bw.Flush()
}

// fence puts text in a code block long enough not to be closed by it.
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return "\n" + f + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}
