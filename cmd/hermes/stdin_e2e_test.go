package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// stdinModel scripts a model that starts `bash` in the background, writes
// data to it with process write or submit (closing stdin, so the shell
// exits once it ran the line), and then waits for the shell, or kills it
// when the write was refused.
func stdinModel(action, data string) func(llmtest.Request) llmtest.Reply {
	var id string
	return func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		switch {
		case last.Role == llm.RoleUser:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"bash","background":true}`}}}
		case last.Name == "terminal":
			var env struct {
				Data struct {
					ProcessID string `json:"process_id"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(last.Text()), &env); err != nil || env.Data.ProcessID == "" {
				return llmtest.Reply{Text: "no process id in " + last.Text()}
			}
			id = env.Data.ProcessID
			args, _ := json.Marshal(map[string]any{"action": action, "session_id": id, "data": data, "eof": true})
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "process", Arguments: string(args)}}}
		case last.Name == "process" && strings.Contains(last.Text(), `"bytes_written"`):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "process",
				Arguments: fmt.Sprintf(`{"action":"wait","session_id":%q,"timeout":20}`, id)}}}
		case last.Name == "process" && strings.Contains(last.Text(), `"status":"error"`):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "process",
				Arguments: fmt.Sprintf(`{"action":"kill","session_id":%q}`, id)}}}
		}
		return llmtest.Reply{Text: "done"}
	}
}

// TestChatBackgroundShellStdinIsChecked: a command the terminal would
// refuse is refused when the model writes it to a background shell
// instead, and one the terminal would run runs: lines written to a shell
// are judged exactly as terminal commands.
func TestChatBackgroundShellStdinIsChecked(t *testing.T) {
	for _, tc := range []struct {
		name, action, data string
		flags              []string
		denied             bool
		says               string
	}{
		{name: "dangerous, nobody to ask", action: "write", data: "rm -rf {dir}\n", denied: true, says: "recursive delete"},
		{name: "dangerous, submitted", data: "rm -rf {dir}", denied: true, says: "recursive delete"},
		{name: "dangerous, split with a line continuation", data: "rm -rf \\\n{dir}", denied: true, says: "recursive delete"},
		{name: "hardline under --yolo", data: "mkfs.ext4 /dev/hermes-test-no-such-device; rm -rf {dir}", flags: []string{"--yolo"},
			denied: true, says: "format a filesystem"},
		{name: "dangerous under --yolo", data: "rm -rf {dir}", flags: []string{"--yolo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			work := t.TempDir()
			target := filepath.Join(work, "precious")
			if err := os.MkdirAll(filepath.Join(target, "inner"), 0o755); err != nil {
				t.Fatal(err)
			}
			srv := llmtest.New(t)
			action := tc.action
			if action == "" {
				action = "submit"
			}
			srv.Handle(stdinModel(action, strings.ReplaceAll(tc.data, "{dir}", target)))
			out, r := h.chatIn(srv, work, "clean up from a shell", tc.flags...)
			if r.code != 0 || len(out.ToolCalls) != 3 || out.ToolCalls[0].Status != "ok" {
				t.Fatalf("exit %d, %+v\n%s", r.code, out, r.stderr)
			}
			write := out.ToolCalls[1]
			_, err := os.Stat(target)
			if tc.denied {
				if write.Code != "denied" || err != nil {
					t.Fatalf("the write: %+v; %s still there: %v", write, target, err)
				}
				if res := lastToolResult(t, srv, 2); !strings.Contains(res, tc.says) {
					t.Errorf("the denial does not say why: %s", res)
				}
				return
			}
			if write.Status != "ok" || !os.IsNotExist(err) {
				t.Errorf("the approved write: %+v; %s removed: %v", write, target, err)
			}
		})
	}
}
