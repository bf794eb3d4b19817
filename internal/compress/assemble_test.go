package compress

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

func TestAssembleRoles(t *testing.T) {
	tests := []struct {
		name       string
		head, tail string // shapes, see shape()
		wantLen    int
		// where the summary lands and as what
		at     int
		role   llm.Role
		merged bool
	}{
		{"after tool results before user: assistant", "uct", "uaua", 8, 3, llm.RoleAssistant, false},
		{"after user before assistant: merged into that user", "u", "aua", 4, 0, llm.RoleUser, true},
		{"no head before user: merged so the conversation starts with user", "", "uaua", 4, 0, llm.RoleUser, true},
		{"no head before assistant: user", "", "aua", 4, 0, llm.RoleUser, false},
		{"after assistant before user: merged into that user", "ua", "uaua", 6, 2, llm.RoleUser, true},
		{"after assistant before assistant: user", "ua", "aua", 6, 2, llm.RoleUser, false},
		{"after tool results before assistant: user", "uct", "aua", 7, 3, llm.RoleUser, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := shape(tt.head + tt.tail)
			head, tail := msgs[:len(tt.head)], msgs[len(tt.head):]
			out := sanitize(assemble(head, tail, goodSummary("g")))
			if len(out) != tt.wantLen {
				t.Fatalf("got %d messages, want %d", len(out), tt.wantLen)
			}
			m := out[tt.at]
			if m.Role != tt.role || !strings.Contains(m.Text(), SummaryMarker) {
				t.Fatalf("message %d = %s %q, want the summary as %s", tt.at, m.Role, m.Text(), tt.role)
			}
			if merged := len(m.Content) > 1; merged != tt.merged {
				t.Errorf("merged = %v, want %v", merged, tt.merged)
			}
			if err := Validate(out); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	calls := func(ids ...string) llm.Message {
		var cs []llm.ToolCall
		for _, id := range ids {
			cs = append(cs, llm.ToolCall{ID: id, Name: "terminal", Arguments: "{}"})
		}
		return llm.AssistantMessage("", cs...)
	}
	res := func(id string) llm.Message { return llm.ToolResultMessage(id, "terminal", "r") }
	tests := []struct {
		name string
		in   []llm.Message
		want string // roles and ids
	}{
		{"orphan result dropped", []llm.Message{llm.UserMessage("u"), res("gone"), llm.AssistantMessage("a")}, "user assistant"},
		{"unanswered call removed, message kept for its text", []llm.Message{llm.UserMessage("u"), llm.AssistantMessage("thinking", llm.ToolCall{ID: "x", Name: "t"}), llm.UserMessage("u2")}, "user assistant user"},
		{"unanswered calls only: message dropped and users merged", []llm.Message{llm.UserMessage("u"), calls("x"), llm.UserMessage("u2")}, "user"},
		{"partly answered calls keep the answered one", []llm.Message{llm.UserMessage("u"), calls("x", "y"), res("y"), llm.AssistantMessage("done")}, "user assistant[y] tool:y assistant"},
		{"duplicate result dropped", []llm.Message{llm.UserMessage("u"), calls("x"), res("x"), res("x"), llm.AssistantMessage("done")}, "user assistant[x] tool:x assistant"},
		{"result after the next turn dropped", []llm.Message{llm.UserMessage("u"), calls("x"), llm.UserMessage("u2"), res("x")}, "user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := sanitize(tt.in)
			if got := describeRoles(out); got != tt.want {
				t.Errorf("sanitize = %q, want %q", got, tt.want)
			}
			if err := Validate(out); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func describeRoles(msgs []llm.Message) string {
	var parts []string
	for _, m := range msgs {
		s := string(m.Role)
		if len(m.ToolCalls) > 0 {
			var ids []string
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
			s += "[" + strings.Join(ids, ",") + "]"
		}
		if m.Role == llm.RoleTool {
			s += ":" + m.ToolCallID
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestValidate(t *testing.T) {
	call := func(id string) llm.Message {
		return llm.AssistantMessage("", llm.ToolCall{ID: id, Name: "terminal", Arguments: "{}"})
	}
	res := func(id string) llm.Message { return llm.ToolResultMessage(id, "terminal", "r") }
	tests := []struct {
		name string
		msgs []llm.Message
		want string // substring of the error; "" for valid
	}{
		{"valid", []llm.Message{llm.SystemMessage("s"), llm.UserMessage("u"), call("a"), res("a"), llm.AssistantMessage("ok")}, ""},
		{"starts with assistant", []llm.Message{llm.AssistantMessage("a"), llm.UserMessage("u")}, "starts with a assistant"},
		{"two users", []llm.Message{llm.UserMessage("u"), llm.UserMessage("u")}, "two user messages"},
		{"two assistants", []llm.Message{llm.UserMessage("u"), llm.AssistantMessage("a"), llm.AssistantMessage("b")}, "two assistant messages"},
		{"unanswered call", []llm.Message{llm.UserMessage("u"), call("a"), llm.UserMessage("u")}, "never answered"},
		{"orphan result", []llm.Message{llm.UserMessage("u"), res("a")}, "answers no call"},
		{"answered twice", []llm.Message{llm.UserMessage("u"), call("a"), res("a"), res("a")}, "answered twice"},
		{"id reused", []llm.Message{llm.UserMessage("u"), call("a"), res("a"), call("a"), res("a")}, "used twice"},
		{"missing id", []llm.Message{llm.UserMessage("u"), call(""), res("")}, "has no id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.msgs)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
