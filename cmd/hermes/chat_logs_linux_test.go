//go:build linux

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// chatOnTerminal runs a chat whose stdin is a terminal, types script and
// returns what it printed.
func chatOnTerminal(t *testing.T, h *home, srv *llmtest.Server, script string, args ...string) string {
	t.Helper()
	master, slave := openPTY(t)
	cmd := chatCommand(h, srv, args...)
	cmd.Stdin = slave
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	go io.Copy(io.Discard, master)
	if _, err := io.WriteString(master, script); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("chat: %v\n%s", err, out.String())
	}
	return out.String()
}

// A chat at a terminal writes its log to $HERMES_HOME/logs/hermes.log
// (owner-only), never over the prompt; --debug keeps it on stderr. /logs
// and `hermes logs` show the file's last lines with secrets replaced and
// control characters escaped, whatever wrote them there.
func TestChatLogsGoToAFileNotThePrompt(t *testing.T) {
	h := newHome(t)
	h.write(".env", "SERVICE_PASSWORD=plainvalue-7731\n")
	srv := llmtest.New(t)
	srv.Handle(llmtest.Echo)
	out := chatOnTerminal(t, h, srv, "hello\n/exit\n")
	if strings.Contains(out, "level=") {
		t.Errorf("log lines reached the terminal:\n%s", out)
	}
	path := filepath.Join(h.dir, "logs", "hermes.log")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no log file: %v\n%s", err, out)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("log file mode %v, want 0600", st.Mode().Perm())
	}
	if d, _ := os.Stat(filepath.Dir(path)); d.Mode().Perm() != 0o700 {
		t.Errorf("log directory mode %v, want 0700", d.Mode().Perm())
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `msg="turn finished"`) {
		t.Errorf("the log file lacks the turn:\n%s", b)
	}

	// Lines another program (or an older hermes) left in the file.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "level=WARN msg=\"\x1b[2J\x1b]0;pwned\x07 password plainvalue-7731 key sk-ant-api03-"+strings.Repeat("x", 40)+"\"\r\n")
	f.Close()
	for name, shown := range map[string]string{
		"hermes logs": h.hermes("logs", "-n", "2").stdout,
		"/logs":       chatOnTerminal(t, h, srv, "/logs 4\n/exit\n"),
	} {
		if !strings.Contains(shown, `msg="turn finished"`) || !strings.Contains(shown, `\x1b[2J`) {
			t.Errorf("%s does not show the last lines, escaped:\n%s", name, shown)
		}
		if strings.Contains(shown, "\x1b[2J") || strings.Contains(shown, "\x07") || strings.Contains(shown, "plainvalue-7731") || strings.Contains(shown, strings.Repeat("x", 40)) {
			t.Errorf("%s shows control characters or secrets:\n%q", name, shown)
		}
	}
	for _, bad := range []string{"0", "-3", "lots"} {
		if r := h.hermes("logs", "-n", bad); r.code == 0 || !strings.Contains(r.stderr, `-n: "`+bad+`" is not a number of lines; give 1 to`) {
			t.Errorf("hermes logs -n %s: exit %d, %s", bad, r.code, r.stderr)
		}
	}

	debug := chatOnTerminal(t, h, srv, "hello again\n/exit\n", "--debug")
	if !strings.Contains(debug, "level=") {
		t.Errorf("--debug does not keep the log on stderr:\n%s", debug)
	}
}
