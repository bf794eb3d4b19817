//go:build unix

package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/terminal"
	"github.com/hermes-go/hermes/internal/tools/terminal/ssh/sshtest"
)

func TestSSHOutputAndExitCode(t *testing.T) {
	s := sshtest.Start(t)
	dir := realDir(t, t.TempDir())
	tr, _ := newSSHTerminal(t, s, terminal.Options{}, dir)
	for _, tc := range []struct {
		cmd  string
		out  string
		code int
	}{
		{"echo hello", "hello\n", 0},
		{"echo partial; exit 3", "partial\n", 3},
		{"false", "", 1},
		{"echo one; echo two >&2; echo three", "one\ntwo\nthree\n", 0},
		{"kill -KILL $$", "", 137},
		{"# only a comment", "", 0},
		{"printf '%s\\n' \"it's\" '\"q\"'", "it's\n\"q\"\n", 0},
		{"cat <<'EOF'\nline $HOME\nEOF", "line $HOME\n", 0},
		{"read line; echo \"read=$?\"", "read=1\n", 0},
		{"echo $TERM $PAGER", "dumb cat\n", 0},
		{"echo ${HERMES_SSH_TEST_SECRET:-unset}", "unset\n", 0},
	} {
		t.Setenv("HERMES_SSH_TEST_SECRET", "local-only")
		res := mustRun(t, tr, "s", tc.cmd)
		if res.Output != tc.out || res.ExitCode != tc.code || res.Truncated || res.Cwd != dir {
			t.Errorf("%q: got (%q, %d, truncated %v, cwd %q), want (%q, %d, cwd %q)",
				tc.cmd, res.Output, res.ExitCode, res.Truncated, res.Cwd, tc.out, tc.code, dir)
		}
	}
	// Each command's watchdog went with it.
	if !gone(t, "hermes-watchdog") {
		t.Error("watchdogs of finished commands are still running")
	}
}

func TestSSHCwdPersistsPerSession(t *testing.T) {
	s := sshtest.Start(t)
	base := realDir(t, t.TempDir())
	if err := os.MkdirAll(filepath.Join(base, "a b", "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	tr, _ := newSSHTerminal(t, s, terminal.Options{}, base)

	res := mustRun(t, tr, "s1", "cd 'a b' && pwd")
	want := filepath.Join(base, "a b")
	if res.Cwd != want || res.Output != want+"\n" {
		t.Fatalf("after cd: %+v", res)
	}
	if res = mustRun(t, tr, "s1", "pwd"); res.Output != want+"\n" {
		t.Fatalf("cwd not kept: %+v", res)
	}
	if res = mustRun(t, tr, "s2", "pwd"); res.Output != base+"\n" {
		t.Fatalf("session s2 sees s1's directory: %+v", res)
	}
	// workdir applies to one call only.
	ctx := context.Background()
	r, err := invoke(ctx, tr, "s1", map[string]any{"command": "pwd", "workdir": "c"})
	if err != nil || r.Output != filepath.Join(want, "c")+"\n" {
		t.Fatalf("workdir: %+v, %v", r, err)
	}
	if res = mustRun(t, tr, "s1", "pwd"); res.Output != want+"\n" {
		t.Fatalf("workdir changed the session directory: %+v", res)
	}
	_, err = invoke(ctx, tr, "s1", map[string]any{"command": "touch ran", "workdir": "/no/such/dir"})
	wantCode(t, err, tool.CodeInvalidArguments)
	if _, err := os.Stat(filepath.Join(want, "ran")); err == nil {
		t.Fatal("the command ran despite a missing workdir")
	}

	// A remembered directory that vanished falls back to the base with a note.
	mustRun(t, tr, "s3", "mkdir tmpd && cd tmpd")
	if err := os.Remove(filepath.Join(base, "tmpd")); err != nil {
		t.Fatal(err)
	}
	res = mustRun(t, tr, "s3", "pwd")
	if res.Output != base+"\n" || !strings.Contains(res.Note, "no longer exists") {
		t.Fatalf("vanished directory: %+v", res)
	}
}

func TestSSHTimeoutKillsRemoteCommand(t *testing.T) {
	s := sshtest.Start(t)
	dir := t.TempDir()
	tr, _ := newSSHTerminal(t, s, terminal.Options{}, dir)
	marker := filepath.Join(dir, "written")
	// The sleep has a unique argument so pgrep finds only it.
	cmd := fmt.Sprintf("echo started; (sleep 37.123; touch %s) & sleep 37.124; touch %s", marker, marker)
	start := time.Now()
	_, err := invoke(context.Background(), tr, "s", map[string]any{"command": cmd, "timeout": 1})
	te := wantCode(t, err, tool.CodeTimeout)
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("timeout took %v", took)
	}
	data, ok := te.Data.(terminal.Result)
	if !ok || data.Output != "started\n" || data.ExitCode != terminal.ExitTimeout {
		t.Errorf("timeout data = %#v", te.Data)
	}
	if !gone(t, "sleep 37.12") {
		t.Fatal("the remote command is still running after the timeout")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command finished despite the timeout")
	}
	// The connection is still usable.
	if res := mustRun(t, tr, "s", "echo after"); res.Output != "after\n" {
		t.Fatalf("after timeout: %+v", res)
	}
}

func TestSSHInterrupt(t *testing.T) {
	s := sshtest.Start(t)
	dir := t.TempDir()
	tr, _ := newSSHTerminal(t, s, terminal.Options{}, dir)
	marker := filepath.Join(dir, "written")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	start := time.Now()
	_, err := invoke(ctx, tr, "s", map[string]any{"command": "sleep 38.321; touch " + marker})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 6*time.Second {
		t.Errorf("interrupt took %v", took)
	}
	if !gone(t, "sleep 38.321") {
		t.Fatal("the remote command is still running after the interrupt")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command finished despite the interrupt")
	}
}

func TestSSHOutputCap(t *testing.T) {
	s := sshtest.Start(t)
	tr, _ := newSSHTerminal(t, s, terminal.Options{MaxOutputBytes: 1000, MaxOutputLines: 50}, t.TempDir())
	res := mustRun(t, tr, "s", "seq 1 100000")
	if !res.Truncated || !strings.HasSuffix(res.Output, "\n100000\n") ||
		!strings.HasPrefix(res.Output, "[output truncated: showing the last 50 of 100000 lines") {
		t.Fatalf("output (%d bytes, truncated %v): %.200q", len(res.Output), res.Truncated, res.Output)
	}
	if n := strings.Count(res.Output, "\n"); n != 51 {
		t.Fatalf("%d lines, want 50 and the notice", n)
	}
}

func TestSSHUnknownHostKeyRefused(t *testing.T) {
	s := sshtest.Start(t)
	other := filepath.Join(t.TempDir(), "known_hosts")
	otherKey := sshtest.WriteKey(t, filepath.Join(t.TempDir(), "k"))
	addr := knownhosts.Normalize(net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)))

	for _, tc := range []struct {
		name, content, want string
	}{
		{"unknown", "# empty\n", "is not in " + other},
		{"changed", knownhosts.Line([]string{addr}, otherKey) + "\n", "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(other, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := sshConfigFor(s, "")
			cfg.KnownHostsFile = other
			tr := terminal.New(terminal.Options{Backend: New(cfg), Fallback: approveAll{}})
			defer tr.Close()
			if err := tr.Available(); err != nil {
				t.Fatalf("Available: %v", err)
			}
			_, err := invoke(context.Background(), tr, "s", map[string]any{"command": "echo hi"})
			te := wantCode(t, err, tool.CodeDenied)
			if !strings.Contains(te.Message, tc.want) || !strings.Contains(te.Message, "ssh-keyscan -p "+strconv.Itoa(s.Port)) {
				t.Fatalf("message = %q", te.Message)
			}
		})
	}

	// The explicit opt-out connects anyway.
	cfg := sshConfigFor(s, "")
	cfg.KnownHostsFile = filepath.Join(t.TempDir(), "missing")
	cfg.InsecureIgnoreHostKey = true
	tr := terminal.New(terminal.Options{Backend: New(cfg), Fallback: approveAll{}})
	defer tr.Close()
	if res := mustRun(t, tr, "s", "echo hi"); res.Output != "hi\n" {
		t.Fatalf("insecure: %+v", res)
	}
}

func TestSSHAvailable(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no host", Config{KeyFile: "/x", KnownHostsFile: "/y"}, "no host"},
		{"missing key", Config{Host: "h", KeyFile: filepath.Join(dir, "nokey"), KnownHostsFile: "/y"}, "key file unreadable"},
		{"relative dir", Config{Host: "h", KeyFile: "/x", KnownHostsFile: "/y", Dir: "rel"}, "not absolute"},
	} {
		err := terminal.New(terminal.Options{Backend: New(tc.cfg)}).Available()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Available = %v, want %q", tc.name, err, tc.want)
		}
	}
	key := filepath.Join(dir, "key")
	sshtest.WriteKey(t, key)
	err := terminal.New(terminal.Options{Backend: New(Config{Host: "h", KeyFile: key, KnownHostsFile: filepath.Join(dir, "none")})}).Available()
	if err == nil || !strings.Contains(err.Error(), "ssh-keyscan -p 22 h >>") {
		t.Errorf("missing known_hosts: %v", err)
	}
	tr := terminal.New(terminal.Options{Backend: New(Config{Host: "h", KeyFile: key, KnownHostsFile: filepath.Join(dir, "none")})})
	_, err = invoke(context.Background(), tr, "s", map[string]any{"command": "true"})
	wantCode(t, err, tool.CodeUpstreamUnavailable)
	if d := tr.Spec().Description; !strings.Contains(d, "on the remote host h over SSH") {
		t.Errorf("description does not name the host: %.120q", d)
	}
}

func TestSSHBackground(t *testing.T) {
	s := sshtest.Start(t)
	base := realDir(t, t.TempDir())
	tr, _ := newSSHTerminal(t, s, terminal.Options{}, base)
	pt := terminal.NewProcessTool(tr)

	// Exit code, output and the directory.
	mustRun(t, tr, "s", "mkdir sub && cd sub")
	st := bgStart(t, tr, "s", "pwd; echo err >&2; exit 3")
	if st.Cwd != filepath.Join(base, "sub") || st.PID <= 1 {
		t.Errorf("started = %+v", st)
	}
	w := must[terminal.WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 10})
	if w.Status != "exited" || w.ExitCode == nil || *w.ExitCode != 3 || w.Output != filepath.Join(base, "sub")+"\nerr\n" {
		t.Fatalf("wait = %+v", w)
	}
	// A background cd does not move the session.
	bgStart(t, tr, "s", "cd /")
	if res := mustRun(t, tr, "s", "pwd"); res.Output != filepath.Join(base, "sub")+"\n" {
		t.Fatalf("after a background cd: %+v", res)
	}

	// stdin through the process tool.
	st = bgStart(t, tr, "s", `read -r line; echo "got:$line"`)
	must[terminal.WriteResult](t, pt, "s", map[string]any{"action": "submit", "session_id": st.ProcessID, "data": "a b"})
	w = must[terminal.WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 10})
	if w.Output != "got:a b\n" || *w.ExitCode != 0 {
		t.Fatalf("wait after submit = %+v", w)
	}

	// Kill takes the remote process group.
	st = bgStart(t, tr, "s", "echo up; sleep 39.25 & sleep 39.26; echo never")
	pollUntil(t, pt, "s", st.ProcessID, "up\n")
	k := must[terminal.KillResult](t, pt, "s", map[string]any{"action": "kill", "session_id": st.ProcessID})
	if k.Status != "exited" || !k.Killed {
		t.Errorf("kill = %+v", k)
	}
	if !gone(t, "sleep 39.2") {
		t.Fatal("the remote background process survived kill")
	}

	// Close stops what is still running.
	bgStart(t, tr, "s", "sleep 39.75")
	tr.Close()
	if !gone(t, "sleep 39.75") {
		t.Fatal("the remote background process survived Close")
	}
}

func TestSSHRedialsDroppedConnection(t *testing.T) {
	s := sshtest.Start(t)
	tr, b := newSSHTerminal(t, s, terminal.Options{}, t.TempDir())
	mustRun(t, tr, "s", "cd /")
	b.mu.Lock()
	first := b.client
	conn := b.conn
	b.mu.Unlock()
	if conn == nil {
		t.Fatal("no connection after a command")
	}
	conn.Close() // as when the network or the host drops it
	res := mustRun(t, tr, "s", "pwd")
	if res.Output != "/\n" {
		t.Fatalf("after redial: %+v", res)
	}
	b.mu.Lock()
	second := b.client
	b.mu.Unlock()
	if second == first {
		t.Fatal("the connection was not redialled")
	}
}

func TestSSHConcurrentSessions(t *testing.T) {
	s := sshtest.Start(t)
	base := realDir(t, t.TempDir())
	tr, _ := newSSHTerminal(t, s, terminal.Options{}, base)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sid := fmt.Sprintf("s%d", i)
			d := fmt.Sprintf("d%d", i)
			if _, err := invoke(context.Background(), tr, sid, map[string]any{"command": "mkdir " + d + " && cd " + d}); err != nil {
				errs <- err
				return
			}
			res, err := invoke(context.Background(), tr, sid, map[string]any{"command": "pwd"})
			if err != nil {
				errs <- err
				return
			}
			if want := filepath.Join(base, d) + "\n"; res.Output != want {
				errs <- fmt.Errorf("%s: pwd = %q, want %q", sid, res.Output, want)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSSHConnectionLostMidCommand(t *testing.T) {
	s := sshtest.Start(t)
	tr, backend := newSSHTerminal(t, s, terminal.Options{}, t.TempDir())
	mustRun(t, tr, "s", "true")
	backend.mu.Lock()
	conn := backend.conn
	backend.mu.Unlock()
	time.AfterFunc(500*time.Millisecond, func() { conn.Close() })
	start := time.Now()
	pidFile := filepath.Join(t.TempDir(), "pgid")
	_, err := invoke(context.Background(), tr, "s", map[string]any{"command": "echo $$ >" + pidFile + "; echo before; sleep 36.5", "timeout": 20})
	te := wantCode(t, err, tool.CodeUpstreamUnavailable)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("noticing the lost connection took %v", took)
	}
	if data, ok := te.Data.(terminal.Result); !ok || data.Output != "before\n" {
		t.Errorf("data = %#v", te.Data)
	}
	if res := mustRun(t, tr, "s", "echo again"); res.Output != "again\n" {
		t.Fatalf("after the lost connection: %+v", res)
	}
	// The command left behind on the host is killed by its watchdog at
	// its timeout; kill its group now so nothing outlives the test.
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pg <= 1 {
		t.Fatalf("pgid file %q", b)
	}
	_ = syscall.Kill(-pg, syscall.SIGKILL)
	if !gone(t, "sleep 36.5") {
		t.Error("the left-behind command is still running")
	}
	// Its watchdog too, found by the group it guards.
	out, _ := exec.Command("pgrep", "-f", fmt.Sprintf("hermes-watchdog [0-9]+ %d$", pg)).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
}
