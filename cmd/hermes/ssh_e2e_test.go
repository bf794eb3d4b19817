//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/tools/terminal/ssh/sshtest"
)

// Through the ssh backend the terminal and the file tools act on the
// remote host (here a real sshd on this machine, so the test can look at
// the files it wrote).
func TestChatOverSSH(t *testing.T) {
	s := sshtest.Start(t)
	work := t.TempDir()
	h := newHome(t)
	h.write("config.yaml", fmt.Sprintf(`terminal:
  backend: ssh
  ssh:
    host: 127.0.0.1
    port: %d
    user: %s
    key_file: %s
    known_hosts_file: %s
    dir: %s
`, s.Port, s.User, s.KeyFile, s.KnownHosts, work))
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall(`mkdir -p remote-sub && cd remote-sub && echo "via=${SSH_CONNECTION:+ssh}"`)}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: `{"path":"note.txt","content":"written over ssh\n"}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: `{"path":"note.txt"}`}}},
		llmtest.Reply{Text: "done remotely"},
	)
	out, r := h.chatIn(srv, t.TempDir(), "work on the remote host")
	if r.code != 0 || out.Final != "done remotely" {
		t.Fatalf("exit %d, %+v\n%s", r.code, out, r.stderr)
	}
	if res := lastToolResult(t, srv, 1); !strings.Contains(res, "via=ssh") {
		t.Errorf("the command did not run over ssh: %s", res)
	}
	data, err := os.ReadFile(filepath.Join(work, "remote-sub", "note.txt"))
	if err != nil || string(data) != "written over ssh\n" {
		t.Errorf("write_file over ssh, relative to the remote cwd: %q, %v", data, err)
	}
	if res := lastToolResult(t, srv, 3); !strings.Contains(res, "1|written over ssh") {
		t.Errorf("read_file over ssh: %s", res)
	}
}
