package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// turn is one turn as the stored messages tell it: the user's message,
// then the model's replies and the tool calls they made, until the next
// user message.
type turn struct {
	SessionID, Title, Source string
	// User is the user the session belongs to, empty for the local
	// owner.
	User       string
	Prompt     string
	Start, End time.Time
	Running    bool
	Calls      []call
	// Bars are the calls drawn on the turn's timeline.
	Bars []bar
}

// Took is how long the turn ran (until now for one still running).
func (t turn) Took() time.Duration { return t.End.Sub(t.Start) }

// call is one tool call of a turn.
type call struct {
	Name, Args string
	Start      time.Time
	Took       time.Duration
	// Status is ok or error from the result's envelope, running while a
	// turn runs without its result, and lost when the turn ended
	// without one.
	Status string
}

// Call statuses besides the result envelope's ok and error.
const (
	statusRunning = "running"
	statusLost    = "lost"
)

// turnsOf splits a session's messages into turns, oldest first. The
// images tools returned come back in a user message after the results
// (agent's imageMessage); it stays in its turn. Text
// shown is redacted and cut; live says a turn is running in the session,
// whose last turn then runs until now.
func turnsOf(s session.Session, msgs []session.Message, live bool, now time.Time, redact func(string) string) []turn {
	var out []turn
	var cur *turn
	pending := map[string]int{}
	var prev llm.Role
	for _, m := range msgs {
		toolImages := prev == llm.RoleTool && m.HasImages() && strings.HasPrefix(m.Text(), "[images returned by ")
		prev = m.Role
		if m.Role == llm.RoleUser && !toolImages && (cur == nil || len(pending) == 0) {
			out = append(out, turn{SessionID: s.ID, Title: redact(s.Title), Source: s.Source, User: s.User,
				Prompt: short(200, redact(m.Text())), Start: m.CreatedAt, End: m.CreatedAt})
			cur = &out[len(out)-1]
			clear(pending)
			continue
		}
		if cur == nil {
			continue
		}
		cur.End = m.CreatedAt
		for _, tc := range m.ToolCalls {
			pending[tc.ID] = len(cur.Calls)
			cur.Calls = append(cur.Calls, call{Name: tc.Name, Args: short(300, redact(tc.Arguments)), Start: m.CreatedAt, Status: statusRunning})
		}
		if m.Role == llm.RoleTool {
			if i, ok := pending[m.ToolCallID]; ok {
				c := &cur.Calls[i]
				c.Took, c.Status = m.CreatedAt.Sub(c.Start), resultStatus(m.Text())
				delete(pending, m.ToolCallID)
			}
		}
	}
	for i := range out {
		t := &out[i]
		last := i == len(out)-1
		if last && live {
			t.Running, t.End = true, now
		}
		for j := range t.Calls {
			if c := &t.Calls[j]; c.Status == statusRunning {
				if t.Running {
					c.Took = now.Sub(c.Start)
				} else {
					c.Status = statusLost
				}
			}
		}
		t.Bars = bars(*t)
	}
	return out
}

// resultStatus reads ok or error from a tool result's envelope; a
// result that is not one counts as ok.
func resultStatus(content string) string {
	var env struct {
		Status string `json:"status"`
	}
	if json.Unmarshal([]byte(content), &env) == nil && env.Status == "error" {
		return "error"
	}
	return "ok"
}

// timelineWidth is the width of a turn's timeline in the SVG's units.
const timelineWidth = 600

// bar is one call on a turn's timeline, in SVG units.
type bar struct {
	X, Y, W string
	Status  string
	Label   string
}

// bars lays a turn's calls out on its timeline, one row each, from the
// turn's start to its end; a call too short to see gets 2 units.
func bars(t turn) []bar {
	total := t.End.Sub(t.Start)
	if total <= 0 {
		total = time.Millisecond
	}
	scale := func(d time.Duration) float64 { return float64(d) / float64(total) * timelineWidth }
	out := make([]bar, len(t.Calls))
	for i, c := range t.Calls {
		x := min(max(scale(c.Start.Sub(t.Start)), 0), timelineWidth-2)
		w := min(max(scale(c.Took), 2), timelineWidth-x)
		out[i] = bar{X: fmt.Sprintf("%.1f", x), Y: fmt.Sprint(i * 14), W: fmt.Sprintf("%.1f", w), Status: c.Status,
			Label: fmt.Sprintf("%s · %s · %s", c.Name, dur(c.Took), c.Status)}
	}
	return out
}

// Height is the height of the turn's timeline in SVG units.
func (t turn) Height() int { return max(len(t.Calls), 1) * 14 }
