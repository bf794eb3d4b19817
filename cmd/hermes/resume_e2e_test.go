package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// storedSession is what `hermes sessions show --json` prints.
type storedSession struct {
	Session struct {
		ID           string `json:"id"`
		MessageCount int    `json:"message_count"`
	} `json:"session"`
	Messages []llm.Message `json:"messages"`
}

// checkPairs fails unless every tool call in msgs is answered by exactly
// one result right after its assistant message.
func checkPairs(t *testing.T, msgs []llm.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		for k, c := range m.ToolCalls {
			j := i + 1 + k
			if j >= len(msgs) || msgs[j].Role != llm.RoleTool || msgs[j].ToolCallID != c.ID {
				t.Fatalf("call %s of message %d is not answered in order: %+v", c.ID, i, msgs)
			}
		}
	}
}

// checkAlternation fails unless user and assistant messages alternate in
// msgs (tool results and the image messages after them stand between an
// assistant message and the next).
func checkAlternation(t *testing.T, msgs []llm.Message) {
	t.Helper()
	prev := llm.Role("")
	for i, m := range msgs {
		if (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) && m.Role == prev {
			t.Fatalf("message %d is the second %s message in a row: %+v", i, m.Role, msgs)
		}
		prev = m.Role
	}
}

// killDuringTool waits until the tool command hermes runs has written its
// shell's pid to pidFile, then kills hermes the hard way (no signal
// handler, no deferred write gets to run) and the tool's process group,
// which would live on.
func killDuringTool(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, pidFile string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var pid []byte
	for {
		if pid, _ = os.ReadFile(pidFile); len(bytes.TrimSpace(pid)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the tool never started; stderr:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
		syscall.Kill(-n, syscall.SIGKILL)
	}
}

func TestChatKilledMidTurnResumes(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	mark := filepath.Join(work, "started")
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo first step")}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo $$ > " + mark + "; sleep 30")}},
		llmtest.Reply{Text: "Both steps are done."},
	)
	cmd := exec.Command(hermesBin, "chat", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
		"--model", "test-model", "--api-key", "sk-test-123456", "--json", "-q", "do two steps")
	cmd.Env, cmd.Dir = h.env, work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killDuringTool(t, cmd, &stderr, mark)

	var list []struct {
		ID string `json:"id"`
	}
	h.cwd = work
	h.hermes("sessions", "list", "--json").decode(t, &list)
	if len(list) != 1 {
		t.Fatalf("sessions after the crash: %+v", list)
	}
	id := list[0].ID
	// The second call was on record before it ran; its result is not.
	var before storedSession
	h.hermes("sessions", "show", id, "--json").decode(t, &before)
	if len(before.Messages) != 4 || before.Session.MessageCount != 4 || len(before.Messages[3].ToolCalls) != 1 {
		t.Fatalf("after kill -9 the session holds %d messages (count %d), want user, call, result, call: %+v",
			len(before.Messages), before.Session.MessageCount, before.Messages)
	}

	out, r := h.chatIn(srv, work, "go on", "--resume", id)
	if r.code != 0 || out.Stopped != "done" || out.SessionID != id || out.Final != "Both steps are done." {
		t.Fatalf("resume: exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	var after storedSession
	h.hermes("sessions", "show", id, "--json").decode(t, &after)
	if len(after.Messages) != 7 {
		t.Fatalf("after resuming the session holds %d messages, want 7 (the lost result, the question, the answer added): %+v",
			len(after.Messages), after.Messages)
	}
	checkPairs(t, after.Messages)
	checkAlternation(t, after.Messages)
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("the model saw a broken conversation: %v", v)
	}
}

func TestSearchFindsEarlierSessions(t *testing.T) {
	h := newHome(t)
	work := t.TempDir()
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Noted."})
	first, r := h.chatIn(srv, work, "Plan the zebra rollout and the 数据库迁移 for Friday")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, q := range []string{"zebra", "数据库迁移", "迁移"} {
		var hits []struct {
			SessionID string `json:"session_id"`
			Snippet   string `json:"snippet"`
		}
		h.hermes("sessions", "search", q, "--json").decode(t, &hits)
		if len(hits) == 0 || hits[0].SessionID != first.SessionID {
			t.Errorf("search %q found %+v, want session %s", q, hits, first.SessionID)
		}
	}

	// A later session finds it through the session_search tool.
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "session_search", Arguments: `{"query":"数据库迁移"}`}}},
		llmtest.Reply{Text: "You planned it on Friday."},
	)
	second, r := h.chatIn(srv, work, "When is the database migration?")
	if r.code != 0 || second.SessionID == first.SessionID {
		t.Fatalf("exit %d, %+v\n%s", r.code, second, r.stderr)
	}
	if res := lastToolResult(t, srv, 2); !strings.Contains(res, first.SessionID) || !strings.Contains(res, "数据库迁移") {
		t.Errorf("session_search did not find the earlier session: %s", res)
	}
}
