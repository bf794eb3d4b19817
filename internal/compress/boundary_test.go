package compress

import (
	"fmt"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// shape builds a conversation from a role string: u user, a assistant
// text, c assistant with one call, t the tool result of the last call.
func shape(s string) []llm.Message {
	var msgs []llm.Message
	call := 0
	for i, r := range s {
		switch r {
		case 'u':
			msgs = append(msgs, llm.UserMessage(fmt.Sprintf("ask %d", i)))
		case 'a':
			msgs = append(msgs, llm.AssistantMessage(fmt.Sprintf("reply %d", i)))
		case 'c':
			call++
			msgs = append(msgs, llm.AssistantMessage("", llm.ToolCall{ID: fmt.Sprintf("c%d", call), Name: "terminal", Arguments: `{"command":"ls"}`}))
		case 'C': // two calls
			call += 2
			msgs = append(msgs, llm.AssistantMessage("",
				llm.ToolCall{ID: fmt.Sprintf("c%d", call-1), Name: "terminal", Arguments: `{}`},
				llm.ToolCall{ID: fmt.Sprintf("c%d", call), Name: "terminal", Arguments: `{}`}))
		case 't':
			msgs = append(msgs, llm.ToolResultMessage(fmt.Sprintf("c%d", call), "terminal", "x"))
		case 'T': // answer the first of two calls
			msgs = append(msgs, llm.ToolResultMessage(fmt.Sprintf("c%d", call-1), "terminal", "x"))
		}
	}
	return msgs
}

func TestFindBounds(t *testing.T) {
	unit := func(llm.Message) int { return 10 }
	tests := []struct {
		name       string
		shape      string
		compressed bool
		protect    int
		tailTokens int
		minTail    int
		want       wantBounds
	}{
		{"head before the first compression", "uauauauaua", false, 3, 30, 0, wantBounds{3, 7}},
		{"no head once compressed", "uauauauaua", true, 3, 30, 0, wantBounds{0, 7}},
		{"tail keeps at least three messages", "uauauauaua", false, 3, 0, 0, wantBounds{3, 7}},
		{"tail grows with its budget", "uauauauaua", false, 3, 50, 0, wantBounds{3, 5}},
		{"tail never starts on a tool result", "uacttttttau", false, 1, 30, 0, wantBounds{1, 2}},
		{"tail walks back over results to their call", "uauaCTtua", false, 1, 30, 0, wantBounds{1, 4}},
		{"a last user message before the aligned start moves it back", "uauacttta", false, 1, 30, 0, wantBounds{1, 2}},
		{"last user message is pulled into the tail", "ucacacacacacac", false, 1, 30, 0, wantBounds{1, 1}},
		{"last user message far back", "uauacacacacacacaca", false, 1, 30, 0, wantBounds{1, 2}},
		{"head extends over the results of its calls", "uCTtauauau", false, 2, 30, 0, wantBounds{4, 7}},
		{"tail reaching into the head leaves no middle", "uaua", false, 3, 30, 0, wantBounds{3, 3}},
		{"short conversation", "ua", false, 3, 30, 0, wantBounds{2, 2}},
		{"empty", "", false, 3, 30, 0, wantBounds{0, 0}},
		// compression.protect_last_n: the tail keeps that many messages
		// past its token budget.
		{"protect_last_n keeps more than the budget", "uauauauauauaua", false, 1, 0, 6, wantBounds{1, 8}},
		{"protect_last_n below the budget changes nothing", "uauauauaua", false, 3, 50, 2, wantBounds{3, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := shape(tt.shape)
			got := findBounds(msgs, boundaryRules{ProtectFirstN: tt.protect, MinTail: tt.minTail, Compressed: tt.compressed, TailTokens: tt.tailTokens, Estimate: unit})
			if got.Head != tt.want.Head || got.Tail != tt.want.Tail {
				t.Fatalf("findBounds(%q) = %+v, want %+v", tt.shape, got, tt.want)
			}
			if got.Prune < got.Tail || got.Prune < got.Head || (got.Prune < len(msgs) && msgs[got.Prune].Role == llm.RoleTool) {
				t.Errorf("Prune = %d, want a message that is not a tool result at or after the head and tail starts", got.Prune)
			}
			if got.Tail < len(msgs) && msgs[got.Tail].Role == llm.RoleTool {
				t.Errorf("tail starts on a tool result at %d", got.Tail)
			}
			if u := lastUser(msgs); u >= 0 && u < got.Tail && u >= got.Head {
				t.Errorf("last user message %d is in the middle [%d, %d)", u, got.Head, got.Tail)
			}
			if len(msgs)-got.Tail < min(MinTailMessages, len(msgs)-got.Head) {
				t.Errorf("tail has %d messages, want at least %d", len(msgs)-got.Tail, MinTailMessages)
			}
		})
	}
}

// wantBounds is the head and tail a test expects.
type wantBounds struct{ Head, Tail int }
