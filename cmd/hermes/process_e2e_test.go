package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// The model starts a background command, then waits for it with the
// process tool, using the id the first result gave it.
func TestChatBackgroundProcess(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		switch {
		case last.Role == llm.RoleUser:
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal",
				Arguments: `{"command":"echo bg-start; sleep 0.2; echo bg-done","background":true}`}}}
		case strings.Contains(last.Text(), `"process_id"`) && last.Name == "terminal":
			var env struct {
				Data struct {
					ProcessID string `json:"process_id"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(last.Text()), &env); err != nil || env.Data.ProcessID == "" {
				return llmtest.Reply{Text: "no process id in " + last.Text()}
			}
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "process",
				Arguments: fmt.Sprintf(`{"action":"wait","session_id":%q,"timeout":20}`, env.Data.ProcessID)}}}
		default:
			return llmtest.Reply{Text: "waited"}
		}
	})
	out, r := h.chatIn(srv, t.TempDir(), "run it in the background and wait")
	if r.code != 0 || out.Final != "waited" || len(out.ToolCalls) != 2 {
		t.Fatalf("exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	res := lastToolResult(t, srv, 2)
	for _, want := range []string{`"status":"exited"`, `"exit_code":0`, "bg-start", "bg-done"} {
		if !strings.Contains(res, want) {
			t.Errorf("the wait result lacks %s: %s", want, res)
		}
	}
}
