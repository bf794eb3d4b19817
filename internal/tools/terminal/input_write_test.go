//go:build unix

package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// judge is an approver that refuses commands holding rm and a marker,
// and records every command it is asked about.
type judge struct {
	mu     sync.Mutex
	marker string
	asked  []string
}

func (j *judge) ApproveCommand(_ context.Context, cmd string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.asked = append(j.asked, cmd)
	if strings.Contains(cmd, "rm") && strings.Contains(cmd, j.marker) {
		return errors.New("recursive delete needs approval and nobody can be asked")
	}
	return nil
}

func (j *judge) questions() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.asked...)
}

// inputRig is a terminal whose commands and writes are judged by j.
type inputRig struct {
	tr  *Terminal
	pt  *ProcessTool
	j   *judge
	ctx context.Context
}

func newInputRig(t *testing.T, marker string) *inputRig {
	j := &judge{marker: marker}
	tr, pt := newBackground(t, Options{})
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s", Workdir: t.TempDir(), Approver: j})
	return &inputRig{tr: tr, pt: pt, j: j, ctx: ctx}
}

func (r *inputRig) start(t *testing.T, command string) Started {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"command": command, "background": true})
	v, err := r.tr.Call(r.ctx, raw)
	if err != nil {
		t.Fatalf("%q: %v", command, err)
	}
	return v.(Started)
}

func (r *inputRig) write(id, action, data string, eof bool) (WriteResult, error) {
	raw, _ := json.Marshal(map[string]any{"action": action, "session_id": id, "data": data, "eof": eof})
	v, err := r.pt.Call(r.ctx, raw)
	res, _ := v.(WriteResult)
	return res, err
}

// A line written to a background shell is a command: it is asked about
// as the terminal asks, and a refused one is not written.
func TestWriteToAShellIsACommand(t *testing.T) {
	t.Parallel()
	precious := filepath.Join(t.TempDir(), "precious")
	if err := os.MkdirAll(filepath.Join(precious, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := newInputRig(t, precious)
	st := r.start(t, "bash")
	if !strings.Contains(st.Note, "check each write") {
		t.Errorf("the start does not say writes are checked: %q", st.Note)
	}
	for _, attack := range []struct{ action, data string }{
		{"submit", "rm -rf " + precious},
		{"write", "rm -rf " + precious + "\n"},
		{"write", "cd / && rm -rf " + precious + "; echo done\n"},
		// No newline yet, but the shell would run it when stdin closes,
		// which it does when hermes dies.
		{"write", "rm -rf " + precious},
	} {
		res, err := r.write(st.ProcessID, attack.action, attack.data, false)
		if wantCode(t, err, tool.CodeDenied); res.BytesWritten != 0 {
			t.Errorf("%q: %d bytes written", attack.data, res.BytesWritten)
		}
		if !strings.Contains(err.Error(), "nothing was written") || !strings.Contains(err.Error(), "recursive delete") {
			t.Errorf("%q: the denial does not say what happened and why: %v", attack.data, err)
		}
	}
	// A command split across writes is judged whole.
	if _, err := r.write(st.ProcessID, "write", "rm -rf \\\n", false); err != nil {
		t.Fatalf("the first half: %v", err)
	}
	_, err := r.write(st.ProcessID, "submit", precious, false)
	wantCode(t, err, tool.CodeDenied)
	if q := r.j.questions(); q[len(q)-1] != "rm -rf \\\n"+precious {
		t.Errorf("asked %q, want the whole command", q[len(q)-1])
	}
	// The shell still holds the first half, so what comes next is read
	// with it (rm -rf echo …); an empty line ends it.
	_, err = r.write(st.ProcessID, "submit", "echo still-here; ls "+precious, false)
	wantCode(t, err, tool.CodeDenied)
	if _, err := r.write(st.ProcessID, "submit", "", false); err != nil {
		t.Fatal(err)
	}
	// What is allowed runs; the shell is still there.
	if _, err := r.write(st.ProcessID, "submit", "echo still-here; ls "+precious, false); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, r.pt, "s", st.ProcessID, "inner")
	if _, err := os.Stat(precious); err != nil {
		t.Fatalf("a refused write ran: %v", err)
	}
	if _, err := r.write(st.ProcessID, "write", "rm -rf "+precious, true); err == nil {
		t.Error("a write with eof skipped the check")
	}
}

// Writes to a program that reads code are checked as that code piped
// into it; to a command line whose reader is unknown, as piped into it
// run by a shell; to a program that reads data, not at all.
func TestWriteCheckedByReader(t *testing.T) {
	t.Parallel()
	r := newInputRig(t, "forbidden")
	for _, tc := range []struct {
		command, data, asked string
	}{
		{"cat", "rm forbidden\n", ""},
		{`read -r answer; echo "got $answer"`, "rm forbidden\n", ""},
		{"X=bash; $X", "rm forbidden\n", "printf '%s' 'rm forbidden\n' | sh -c 'X=bash; $X'"},
		{"xargs echo", "rm forbidden\n", "printf '%s' 'rm forbidden\n' | xargs echo"},
	} {
		st := r.start(t, tc.command)
		before := len(r.j.questions())
		_, err := r.write(st.ProcessID, "write", tc.data, false)
		q := r.j.questions()[before:]
		switch {
		case tc.asked == "" && (err != nil || len(q) != 0):
			t.Errorf("%q reads data, yet the write was checked: %v, asked %q", tc.command, err, q)
		case tc.asked != "" && (len(q) != 1 || q[0] != tc.asked):
			t.Errorf("%q: asked %q, want %q", tc.command, q, tc.asked)
		case tc.asked != "" && err == nil:
			t.Errorf("%q: a refused write went through", tc.command)
		}
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return
	}
	st := r.start(t, "python3 -i")
	_, err := r.write(st.ProcessID, "submit", "import os; os.system('rm forbidden')", false)
	wantCode(t, err, tool.CodeDenied)
	if q := r.j.questions(); q[len(q)-1] != `printf '%s' 'import os; os.system('\''rm forbidden'\'')
' | python3 -i` {
		t.Errorf("asked %q", q[len(q)-1])
	}
}
