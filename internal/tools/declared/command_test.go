//go:build unix

package declared

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// script writes an executable shell script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCommandTextAndJSONOutput(t *testing.T) {
	bin := t.TempDir()
	args := script(t, bin, "args.sh", `for a in "$@"; do printf '[%s]\n' "$a"; done; echo warn >&2`)
	js := script(t, bin, "js.sh", `printf '{"n": %s, "items": ["a"]}' "$1"`)
	h := newHome(t)
	h.load("cmd.yaml", fmt.Sprintf(`tools:
  - name: echo_args
    description: Echo arguments.
    parameters: {type: object, properties: {v: {type: string}, w: {type: string}}}
    command: {argv: [%q, "{{.v}}", "{{.w}}"]}
  - name: js
    description: JSON.
    parameters: {type: object, properties: {n: {type: integer}}}
    command: {argv: [%q, "{{.n}}"], output: json}
`, args, js))
	got := h.call(context.Background(), "echo_args", `{"v":"hello world"}`)
	want := map[string]any{"exit_code": 0.0, "stdout": "[hello world]\n[]", "stderr": "warn"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("text output = %v, want %v", got, want)
	}
	got = h.call(context.Background(), "js", `{"n":12345678901}`)
	if !reflect.DeepEqual(got, map[string]any{"n": 12345678901.0, "items": []any{"a"}}) {
		t.Errorf("json output = %v", got)
	}
}

func TestCommandBadJSONOutput(t *testing.T) {
	bin := t.TempDir()
	bad := script(t, bin, "bad.sh", `echo 'not json at all'`)
	h := newHome(t)
	h.load("cmd.yaml", fmt.Sprintf("tools:\n  - name: bad\n    description: d\n    command: {argv: [%q], output: json}\n", bad))
	o, _ := h.run(context.Background(), "bad", `{}`)
	if o.Result.ErrorCode != tool.CodeInternal || !strings.Contains(o.Result.Message, `"not json at all`) {
		t.Errorf("got %s %q", o.Result.ErrorCode, o.Result.Message)
	}
}

func TestCommandNonZeroExit(t *testing.T) {
	bin := t.TempDir()
	fail := script(t, bin, "fail.sh", `echo partial output
i=1; while [ $i -le 30 ]; do echo "err line $i" >&2; i=$((i+1)); done
exit 3`)
	h := newHome(t)
	h.load("cmd.yaml", fmt.Sprintf("tools:\n  - name: fail\n    description: d\n    command: {argv: [%q]}\n", fail))
	o, _ := h.run(context.Background(), "fail", `{}`)
	r := o.Result
	if r.ErrorCode != tool.CodeInternal || !strings.HasPrefix(r.Message, "exit status 3: ") {
		t.Fatalf("got %s %q", r.ErrorCode, r.Message)
	}
	if !strings.Contains(r.Message, "err line 30") || strings.Contains(r.Message, "err line 10\n") {
		t.Errorf("message should hold the last 20 stderr lines: %q", r.Message)
	}
	data := roundTrip(t, r.Data).(map[string]any)
	if data["stdout"] != "partial output\n" || data["exit_code"] != 3.0 {
		t.Errorf("data = %v", data)
	}
}

func TestCommandQuoting(t *testing.T) {
	bin := t.TempDir()
	args := script(t, bin, "args.sh", `for a in "$@"; do printf '[%s]\n' "$a"; done`)
	work := t.TempDir()
	h := newHome(t)
	h.load("cmd.yaml", fmt.Sprintf(`tools:
  - name: direct
    description: d
    parameters: {type: object, properties: {v: {type: string}}}
    command: {argv: [%[1]q, "{{.v}}"], dir: %[2]q}
  - name: shelled
    description: d
    parameters: {type: object, properties: {v: {type: string}}}
    command: {argv: [%[1]q, "{{.v}}", "--", "fixed arg"], shell: true, dir: %[2]q}
`, args, work))
	for _, v := range []string{`a b'c "d"`, `x; touch pwned`, `$(touch pwned)`, "`touch pwned`", `it's`} {
		arg, _ := strconv.Unquote(strconv.Quote(v))
		in := fmt.Sprintf(`{"v":%s}`, strconv.Quote(arg))
		got := h.call(context.Background(), "direct", in).(map[string]any)
		if got["stdout"] != "["+v+"]" {
			t.Errorf("direct %q: stdout %q, want one argument", v, got["stdout"])
		}
		got = h.call(context.Background(), "shelled", in).(map[string]any)
		if got["stdout"] != "["+v+"]\n[--]\n[fixed]\n[arg]" {
			t.Errorf("shell %q: stdout %q, want the value as one quoted argument", v, got["stdout"])
		}
	}
	if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
		t.Error("an argument ran touch")
	}
}

func TestCommandStdinEnvAndDir(t *testing.T) {
	bin := t.TempDir()
	sh := script(t, bin, "env.sh", `echo "greeting=$GREETING"; echo "secret=${HERMES_TEST_API_KEY:-unset}"; echo "pwd=$(pwd)"; cat`)
	t.Setenv("HERMES_TEST_API_KEY", "leaked")
	work := t.TempDir()
	h := newHome(t)
	h.env["WHO"] = "world"
	h.load("cmd.yaml", fmt.Sprintf(`tools:
  - name: env_tool
    description: d
    parameters: {type: object, properties: {name: {type: string}}}
    command:
      argv: [%q]
      env: {GREETING: "hello {{.name}} from ${WHO}"}
      stdin: "input for {{.name}}"
`, sh))
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{Workdir: work})
	got := h.call(ctx, "env_tool", `{"name":"ann"}`).(map[string]any)
	wd, _ := filepath.EvalSymlinks(work)
	want := "greeting=hello ann from world\nsecret=unset\npwd=" + wd + "\ninput for ann"
	if got["stdout"] != want {
		t.Errorf("stdout = %q, want %q", got["stdout"], want)
	}
}

func TestCommandTimeoutKillsProcessGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	bin := t.TempDir()
	pids := filepath.Join(bin, "pids")
	sh := script(t, bin, "hang.sh", fmt.Sprintf(`sleep 300 &
echo "$$ $!" > %q
sleep 300
`, pids))
	h := newHome(t)
	h.load("cmd.yaml", fmt.Sprintf("tools:\n  - name: hang\n    description: d\n    timeout: 300ms\n    command: {argv: [%q]}\n", sh))
	o, _ := h.run(context.Background(), "hang", `{}`)
	if o.Result.ErrorCode != tool.CodeTimeout {
		t.Fatalf("got %s %q, want timeout", o.Result.ErrorCode, o.Result.Message)
	}
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the command's group is still alive", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}
