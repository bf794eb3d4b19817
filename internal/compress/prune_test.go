package compress

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

func TestDescribeResult(t *testing.T) {
	long := strings.Repeat("line of output\n", 120)
	tests := []struct {
		name, tool, args string
		data             any
		raw              string // used instead of an ok envelope of data
		want             string
	}{
		{"terminal", "terminal", `{"command":"go test ./..."}`,
			map[string]any{"output": long, "exit_code": 0, "cwd": "/src"}, "",
			"[terminal] ran `go test ./...` -> exit 0, 120 lines"},
		{"terminal non-zero exit", "terminal", `{"command":"make"}`,
			map[string]any{"output": long, "exit_code": 2}, "",
			"[terminal] ran `make` -> exit 2, 120 lines"},
		{"read_file", "read_file", `{"path":"src/main.go"}`,
			map[string]any{"content": strings.Repeat("x", 5000), "path": "src/main.go", "total_lines": 10}, "",
			"[read_file] read src/main.go (5000 chars)"},
		{"write_file", "write_file", `{"path":"out.txt","content":"..."}`,
			map[string]any{"path": "out.txt", "bytes_written": 4096, "action": "created"}, "",
			"[write_file] wrote out.txt (4096 bytes)"},
		{"search_files", "search_files", `{"pattern":"TODO","path":"internal"}`,
			map[string]any{"results": long, "shown": 50, "total": 73}, "",
			"[search_files] TODO in internal -> 73 matches"},
		{"web_extract", "web_extract", `{"urls":["https://example.com/a"]}`,
			[]map[string]any{{"url": "https://example.com/a", "title": "Example A", "content": strings.Repeat("y", 900)}}, "",
			"[web_extract] https://example.com/a -> Example A (900 chars)"},
		{"generic tool", "browser_navigate", `{"url":"https://example.com"}`,
			map[string]any{"snapshot": long}, "",
			`[browser_navigate] {"url":"https://example.com"} -> ok, `},
		{"error envelope", "terminal", `{"command":"sleep 999"}`, nil,
			`{"status":"error","error_code":"timeout","message":"the command ran past 180s` + strings.Repeat(".", 250) + `"}`,
			"[terminal] ran `sleep 999` -> error timeout: the command ran past 180s"},
		{"not an envelope", "legacy", `{"q":1}`, nil, strings.Repeat("z", 300),
			`[legacy] {"q":1} -> ok, 300 chars`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content := tt.raw
			if content == "" {
				content = envelopeOK(t, tt.data)
			}
			got := describeResult(tt.tool, tt.args, content)
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("describeResult = %q, want it to start with %q", got, tt.want)
			}
			if strings.Contains(got, "\n") || len(got) > 400 {
				t.Errorf("description is not one short line: %q", got)
			}
		})
	}
}

func TestPruneOutsideTail(t *testing.T) {
	big := func(s string) string {
		return envelopeOK(t, map[string]any{"output": strings.Repeat(s+"\n", 50), "exit_code": 0})
	}
	msgs := []llm.Message{
		llm.UserMessage("check the build"),
		llm.AssistantMessage("", llm.ToolCall{ID: "a", Name: "terminal", Arguments: `{"command":"make"}`}),
		llm.ToolResultMessage("a", "terminal", big("built")),
		llm.AssistantMessage("", llm.ToolCall{ID: "b", Name: "terminal", Arguments: `{"command":"make"}`}),
		llm.ToolResultMessage("b", "terminal", big("built")),
		llm.AssistantMessage("", llm.ToolCall{ID: "c", Name: "terminal", Arguments: `{"command":"echo"}`}),
		llm.ToolResultMessage("c", "terminal", `{"status":"ok","data":{"output":"hi","exit_code":0}}`),
		llm.AssistantMessage("", llm.ToolCall{ID: "d", Name: "terminal", Arguments: `{"command":"make"}`}),
		llm.ToolResultMessage("d", "terminal", big("built")),
	}
	orig := msgs[2].Text()
	out, changed := prune(msgs, 7)
	if got, want := out[2].Text(), "[terminal] ran `make` -> exit 0, 50 lines"; got != want {
		t.Errorf("first copy = %q, want %q", got, want)
	}
	if got, want := out[4].Text(), "[same result as call a]"; got != want {
		t.Errorf("second copy = %q, want %q", got, want)
	}
	if got := out[6].Text(); !strings.Contains(got, `"hi"`) {
		t.Errorf("a short result was changed: %q", got)
	}
	if out[8].Text() != msgs[8].Text() {
		t.Error("a result in the tail was changed")
	}
	if changed != 2 {
		t.Errorf("changed = %d, want 2", changed)
	}
	if msgs[2].Text() != orig {
		t.Error("prune modified its input")
	}
	if err := Validate(out); err != nil {
		t.Errorf("pruned conversation is invalid: %v", err)
	}
}

func TestPruneDedupNeedsSameTool(t *testing.T) {
	same := strings.Repeat("same content ", 40)
	msgs := []llm.Message{
		llm.UserMessage("go"),
		llm.AssistantMessage("", llm.ToolCall{ID: "a", Name: "read_file", Arguments: `{"path":"a"}`}, llm.ToolCall{ID: "b", Name: "cat", Arguments: `{}`}),
		llm.ToolResultMessage("a", "read_file", same),
		llm.ToolResultMessage("b", "cat", same),
	}
	out, _ := prune(msgs, len(msgs))
	if strings.HasPrefix(out[3].Text(), "[same result") {
		t.Errorf("results of different tools were folded: %q", out[3].Text())
	}
}

func TestShrinkArguments(t *testing.T) {
	huge := strings.Repeat("package main\n", 500)
	tests := []struct {
		name, args string
	}{
		{"one long string", `{"path":"main.go","content":` + quote(t, huge) + `}`},
		{"nested values keep their structure", `{"edits":[{"old":` + quote(t, huge) + `,"new":` + quote(t, huge) + `,"line":12,"ok":true,"x":null}],"n":1.5e3}`},
		{"many long strings", `{"a":` + quote(t, huge) + `,"b":` + quote(t, huge) + `,"c":` + quote(t, "日本語"+huge) + `}`},
		{"not JSON", `{"content": "` + huge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := shrinkArguments(tt.args, MaxArgumentChars)
			if !json.Valid([]byte(got)) {
				t.Fatalf("shrunk arguments are not valid JSON: %s", got)
			}
			if len(got) > MaxArgumentChars {
				t.Errorf("shrunk arguments are %d chars, want at most %d", len(got), MaxArgumentChars)
			}
			if !strings.Contains(got, "…[cut") {
				t.Errorf("no cut marker in %s", got)
			}
		})
	}
	small := `{"command":"ls"}`
	if got := shrinkArguments(small, MaxArgumentChars); got != small {
		t.Errorf("small arguments changed: %s", got)
	}
	got := shrinkArguments(`{"z":1,"path":"p","content":`+quote(t, huge)+`,"a":[1,2]}`, MaxArgumentChars)
	if !strings.HasPrefix(got, `{"z":1,"path":"p","content":"package main`) || !strings.HasSuffix(got, `"a":[1,2]}`) {
		t.Errorf("key order or short values not kept: %s", got)
	}
}

func quote(t *testing.T, s string) string {
	t.Helper()
	b, err := marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
