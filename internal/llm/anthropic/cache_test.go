package anthropic

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// cachePaths lists where cache_control marks sit in a decoded request
// body, as paths like "messages[2].content[1]", failing on any mark that
// is not {"type":"ephemeral"}.
func cachePaths(t *testing.T, v any, path string, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		if cc, ok := v["cache_control"]; ok {
			if cc.(map[string]any)["type"] != "ephemeral" {
				t.Errorf("%s: cache_control = %v", path, cc)
			}
			*out = append(*out, path)
		}
		for k, child := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			cachePaths(t, child, p, out)
		}
	case []any:
		for i, child := range v {
			cachePaths(t, child, fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

func TestCacheBreakpoints(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "read_file"}, {Name: "write_file"}}
	call := llm.ToolCall{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"a"}`}
	image := llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("see"), llm.ImagePart("https://x.test/a.png")}}
	tests := []struct {
		name  string
		msgs  []llm.Message
		tools []llm.ToolSpec
		off   bool
		want  []string
	}{
		{
			name: "system, tools and the last two user turns",
			msgs: []llm.Message{
				llm.SystemMessage("stable"), llm.SystemMessage("also stable"),
				llm.UserMessage("first"), // messages[0], too old to mark
				llm.AssistantMessage("", call),
				llm.ToolResultMessage("toolu_1", "read_file", "contents"), // merged with the next
				llm.UserMessage("second"),                                 // messages[2].content[1]
				llm.AssistantMessage("ok"),
				llm.UserMessage("third"), // messages[4].content[0]
			},
			tools: tools,
			want:  []string{"messages[2].content[1]", "messages[4].content[0]", "system[1]", "tools[1]"},
		},
		{
			name: "a user turn that ends in a tool result",
			msgs: []llm.Message{
				llm.UserMessage("go"), llm.AssistantMessage("", call),
				llm.ToolResultMessage("toolu_1", "read_file", "contents"),
			},
			want: []string{"messages[0].content[0]", "messages[2].content[0]"},
		},
		{
			name: "the last block of a turn, image included",
			msgs: []llm.Message{llm.SystemMessage("s"), image},
			want: []string{"messages[0].content[1]", "system[0]"},
		},
		{
			name: "only the last two user turns, even with marks to spare",
			msgs: []llm.Message{llm.UserMessage("a"), llm.AssistantMessage("b"), llm.UserMessage("c"), llm.AssistantMessage("d"), llm.UserMessage("e")},
			want: []string{"messages[2].content[0]", "messages[4].content[0]"},
		},
		{
			name: "assistant turns are never marked",
			msgs: []llm.Message{llm.UserMessage("a"), llm.AssistantMessage("b"), llm.UserMessage("c"), llm.AssistantMessage("d")},
			want: []string{"messages[0].content[0]", "messages[2].content[0]"},
		},
		{
			name:  "off unless asked",
			msgs:  []llm.Message{llm.SystemMessage("s"), llm.UserMessage("a")},
			tools: tools,
			off:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := send(t, llm.Endpoint{}, &llm.Request{Messages: tt.msgs, Tools: tt.tools, CacheBreakpoints: !tt.off})
			var got []string
			cachePaths(t, x.wire(t), "", &got)
			sort.Strings(got)
			if len(got) > maxBreakpoints {
				t.Errorf("%d breakpoints, Anthropic allows %d", len(got), maxBreakpoints)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cache_control at %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestUsageCountsMerge(t *testing.T) {
	n := func(v int) *int { return &v }
	var c usageCounts
	c.merge(&usageCounts{InputTokens: n(0), OutputTokens: n(1), CacheReadInputTokens: n(100)})
	c.merge(&usageCounts{InputTokens: n(30), OutputTokens: n(7)}) // cumulative: replaces
	c.merge(&usageCounts{OutputTokens: n(9)})                     // absent fields kept
	c.merge(nil)
	want := llm.Usage{InputTokens: 130, OutputTokens: 9, CacheReadTokens: 100}
	if got := c.usage(); got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
}

func TestUsageThinkingTokens(t *testing.T) {
	var c usageCounts
	for _, raw := range []string{
		`{"input_tokens":598,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}`,
		`{"input_tokens":598,"output_tokens":92,"output_tokens_details":{"thinking_tokens":53}}`,
	} {
		var u usageCounts
		if err := json.Unmarshal([]byte(raw), &u); err != nil {
			t.Fatal(err)
		}
		c.merge(&u)
	}
	want := llm.Usage{InputTokens: 598, OutputTokens: 92, ReasoningTokens: 53}
	if got := c.usage(); got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
}

// TestCacheTTL: an endpoint configured for the one-hour cache asks for it
// on every breakpoint; the default asks for nothing more than ephemeral.
func TestCacheTTL(t *testing.T) {
	req := &llm.Request{Messages: []llm.Message{llm.SystemMessage("s"), llm.UserMessage("a")},
		Tools: []llm.ToolSpec{{Name: "t"}}, CacheBreakpoints: true}
	for _, tc := range []struct{ ttl, want string }{{"1h", `"cache_control":{"ttl":"1h","type":"ephemeral"}`}, {"", `"cache_control":{"type":"ephemeral"}`}} {
		x := send(t, llm.Endpoint{CacheTTL: tc.ttl, Model: "claude-test"}, req)
		body, _ := json.Marshal(x.wire(t))
		if n := strings.Count(string(body), tc.want); n != 3 {
			t.Errorf("ttl %q: %d marks %s in %s, want 3", tc.ttl, n, tc.want, body)
		}
	}
}
