//go:build unix

package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/tool"
)

// newBackground returns a terminal and its process tool; the terminal is
// closed when the test ends so nothing outlives it.
func newBackground(t *testing.T, opt Options) (*Terminal, *ProcessTool) {
	t.Helper()
	tr := newTerminal(t, opt)
	t.Cleanup(func() { tr.Close() })
	return tr, NewProcessTool(tr)
}

// bgStart starts command in the background in session sid.
func bgStart(t *testing.T, tr *Terminal, sid, dir, command string) Started {
	t.Helper()
	v, err := bgCall(tr, sid, dir, command)
	if err != nil {
		t.Fatalf("%q: %v", command, err)
	}
	return v
}

func bgCall(tr *Terminal, sid, dir, command string) (Started, error) {
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: sid, Workdir: dir})
	raw, _ := json.Marshal(map[string]any{"command": command, "background": true})
	v, err := tr.Call(ctx, raw)
	if err != nil {
		return Started{}, err
	}
	return v.(Started), nil
}

// pcall calls the process tool in session sid.
func pcall(ctx context.Context, pt *ProcessTool, sid string, args map[string]any) (any, error) {
	ctx = tool.WithInvocation(ctx, tool.Invocation{SessionID: sid})
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return pt.Call(ctx, raw)
}

func mustP[T any](t *testing.T, pt *ProcessTool, sid string, args map[string]any) T {
	t.Helper()
	v, err := pcall(context.Background(), pt, sid, args)
	if err != nil {
		t.Fatalf("process %v: %v", args, err)
	}
	return v.(T)
}

// pollUntil polls id until its accumulated output contains want.
func pollUntil(t *testing.T, pt *ProcessTool, sid, id, want string) (all string, polls []PollResult) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		res := mustP[PollResult](t, pt, sid, map[string]any{"action": "poll", "session_id": id})
		polls = append(polls, res)
		all += res.Output
		if strings.Contains(all, want) {
			return all, polls
		}
		if time.Now().After(deadline) {
			t.Fatalf("output %q never contained %q", all, want)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

func TestBackgroundStartListPoll(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{})
	dir := realDir(t, t.TempDir())
	start := time.Now()
	st := bgStart(t, tr, "s", dir, "echo one; sleep 0.4; echo two >&2; exec sleep 30.1234")
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("background start took %v", elapsed)
	}
	if !strings.HasPrefix(st.ProcessID, "proc_") || st.PID <= 0 || st.Cwd != dir || st.StartedAt.IsZero() {
		t.Fatalf("started = %+v", st)
	}

	list := mustP[ListResult](t, pt, "s", map[string]any{"action": "list"})
	if len(list.Processes) != 1 || list.Processes[0].ProcessID != st.ProcessID ||
		list.Processes[0].Status != "running" || list.Processes[0].ExitCode != nil {
		t.Fatalf("list = %+v", list)
	}

	all, polls := pollUntil(t, pt, "s", st.ProcessID, "one\n")
	all2, polls2 := pollUntil(t, pt, "s", st.ProcessID, "two\n")
	if all != "one\n" || all2 != "two\n" {
		t.Errorf("polls returned %q then %q, want each line once", all, all2)
	}
	if last := polls2[len(polls2)-1]; last.Status != "running" || last.OutputBytes != 8 {
		t.Errorf("poll = %+v", last)
	}
	_ = polls
	// process_id is accepted as an alias of session_id.
	mustP[PollResult](t, pt, "s", map[string]any{"action": "poll", "process_id": st.ProcessID})

	k := mustP[KillResult](t, pt, "s", map[string]any{"action": "kill", "session_id": st.ProcessID})
	if k.Status != "exited" || !k.Killed || k.ExitCode == nil || *k.ExitCode != 143 {
		t.Errorf("kill = %+v", k)
	}
	waitGone(t, "30.1234")
}

func TestBackgroundWaitExitCode(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{})
	st := bgStart(t, tr, "s", t.TempDir(), "echo hi; echo err >&2; exit 3")
	w := mustP[WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 10})
	if w.TimedOut || w.Status != "exited" || w.ExitCode == nil || *w.ExitCode != 3 ||
		w.Output != "hi\nerr\n" || w.EndedAt == nil || w.Killed {
		t.Fatalf("wait = %+v", w)
	}
	b, _ := json.Marshal(w)
	for _, key := range []string{`"exit_code":3`, `"status":"exited"`, `"process_id":"proc_`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("wait JSON %s lacks %s", b, key)
		}
	}
	// Waiting again answers at once.
	w = mustP[WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 1})
	if w.TimedOut || *w.ExitCode != 3 {
		t.Errorf("second wait = %+v", w)
	}
}

func TestBackgroundWaitTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{})
	st := bgStart(t, tr, "s", t.TempDir(), "sleep 30.2222")
	start := time.Now()
	w := mustP[WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 1})
	if elapsed := time.Since(start); elapsed < time.Second || elapsed > 3*time.Second {
		t.Errorf("wait returned after %v, want about 1s", elapsed)
	}
	if !w.TimedOut || w.Status != "running" || w.Note == "" {
		t.Errorf("wait = %+v", w)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start = time.Now()
	_, err := pcall(ctx, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("cancelled wait returned after %v", elapsed)
	}
	// Still running: a cancelled wait does not kill.
	list := mustP[ListResult](t, pt, "s", map[string]any{"action": "list"})
	if list.Processes[0].Status != "running" {
		t.Errorf("list = %+v", list)
	}
	_, err = pcall(context.Background(), pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 601})
	wantCode(t, err, tool.CodeInvalidArguments)
}

func TestBackgroundKillTakesChildren(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{})
	// The children ignore SIGTERM, so kill must escalate to SIGKILL.
	st := bgStart(t, tr, "s", t.TempDir(), "trap '' TERM; sleep 31.8181 & sleep 31.8181 & echo up; wait")
	pollUntil(t, pt, "s", st.ProcessID, "up")
	// The command lines of the guard shell and of the subshell running
	// the command hold the marker too.
	if got := alive(t, "31.8181"); len(got) != 4 {
		t.Fatalf("guard, shell and children running: %v, want 4", got)
	}
	start := time.Now()
	k := mustP[KillResult](t, pt, "s", map[string]any{"action": "kill", "session_id": st.ProcessID})
	if elapsed := time.Since(start); elapsed > KillGrace+2*time.Second {
		t.Errorf("kill took %v", elapsed)
	}
	if k.Status != "exited" || !k.Killed || k.ExitCode == nil || *k.ExitCode != 137 {
		t.Errorf("kill = %+v", k)
	}
	waitGone(t, "31.8181")
	assertGroupGone(t, st.PID)

	// Killing again reports the final status with a note.
	k = mustP[KillResult](t, pt, "s", map[string]any{"action": "kill", "session_id": st.ProcessID})
	if k.Status != "exited" || k.Note == "" {
		t.Errorf("second kill = %+v", k)
	}
}

// assertGroupGone fails when any live process is in process group pgid.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		var members []string
		paths, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			s := string(b)
			i := strings.LastIndexByte(s, ')')
			if i < 0 {
				continue
			}
			// After ") ": state ppid pgrp ...
			f := strings.Fields(s[i+1:])
			if len(f) > 2 && f[0] != "Z" && f[2] == fmt.Sprint(pgid) {
				members = append(members, filepath.Base(filepath.Dir(p)))
			}
		}
		if len(members) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has %v", pgid, members)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBackgroundWriteStdin(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{})
	st := bgStart(t, tr, "s", t.TempDir(), "cat")
	w := mustP[WriteResult](t, pt, "s", map[string]any{"action": "submit", "session_id": st.ProcessID, "data": "hello"})
	if w.BytesWritten != 6 || w.StdinClosed {
		t.Errorf("submit = %+v", w)
	}
	pollUntil(t, pt, "s", st.ProcessID, "hello\n")
	w = mustP[WriteResult](t, pt, "s", map[string]any{"action": "write", "session_id": st.ProcessID, "data": "bye", "eof": true})
	if w.BytesWritten != 3 || !w.StdinClosed {
		t.Errorf("write = %+v", w)
	}
	res := mustP[WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 5})
	if res.Status != "exited" || *res.ExitCode != 0 || res.Output != "hello\nbye" {
		t.Errorf("wait = %+v", res)
	}
	_, err := pcall(context.Background(), pt, "s", map[string]any{"action": "write", "session_id": st.ProcessID, "data": "late"})
	wantCode(t, err, tool.CodeInvalidArguments)

	// A shell `read` gets the line.
	st = bgStart(t, tr, "s", t.TempDir(), `read -r line; echo "got:$line"`)
	mustP[WriteResult](t, pt, "s", map[string]any{"action": "submit", "session_id": st.ProcessID, "data": "a b"})
	res = mustP[WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 5})
	if res.Output != "got:a b\n" || *res.ExitCode != 0 {
		t.Errorf("wait = %+v", res)
	}
}

func TestBackgroundLogPaging(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{})
	st := bgStart(t, tr, "s", t.TempDir(), "seq 1 500")
	mustP[WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 5})

	lg := mustP[LogResult](t, pt, "s", map[string]any{"action": "log", "session_id": st.ProcessID})
	if lg.LinesShown != 200 || lg.FromLine != 300 || lg.TotalLines != 500 || lg.DroppedLines != 0 ||
		!strings.HasPrefix(lg.Output, "301\n") || !strings.HasSuffix(lg.Output, "\n500\n") || lg.Note != "" {
		t.Errorf("default log = %+v", lg)
	}
	lg = mustP[LogResult](t, pt, "s", map[string]any{"action": "log", "session_id": st.ProcessID, "offset": 0, "limit": 3})
	if lg.Output != "1\n2\n3\n" || lg.FromLine != 0 || !strings.Contains(lg.Note, "offset 3") {
		t.Errorf("first page = %+v", lg)
	}
	lg = mustP[LogResult](t, pt, "s", map[string]any{"action": "log", "session_id": st.ProcessID, "offset": 498, "limit": 10})
	if lg.Output != "499\n500\n" || lg.LinesShown != 2 || lg.Note != "" {
		t.Errorf("last page = %+v", lg)
	}
	lg = mustP[LogResult](t, pt, "s", map[string]any{"action": "log", "session_id": st.ProcessID, "offset": 900})
	if lg.Output != "" || !strings.Contains(lg.Note, "past the end") {
		t.Errorf("past the end = %+v", lg)
	}
}

func TestBackgroundOutputDrop(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{})
	// seq 1 100000 prints 588,895 bytes, well over the 200 KB kept.
	st := bgStart(t, tr, "s", t.TempDir(), "seq 1 100000")
	w := mustP[WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 10})
	if w.OutputBytes != 588895 || !w.Truncated || !strings.HasSuffix(w.Output, "\n100000\n") {
		t.Fatalf("wait: bytes %d truncated %v tail %q", w.OutputBytes, w.Truncated, w.Output[max(0, len(w.Output)-20):])
	}
	if !strings.Contains(w.Output[:200], "of 100000 lines") {
		t.Errorf("truncation notice: %q", w.Output[:200])
	}

	lg := mustP[LogResult](t, pt, "s", map[string]any{"action": "log", "session_id": st.ProcessID, "offset": 0, "limit": 2})
	if lg.DroppedLines == 0 || lg.TotalLines != 100000 || lg.FromLine != lg.DroppedLines ||
		!strings.Contains(lg.Note, "no longer kept") {
		t.Fatalf("log = %+v", lg)
	}
	// Line numbers stay true: line n holds n+1.
	want := fmt.Sprintf("%d\n%d\n", lg.FromLine+1, lg.FromLine+2)
	if lg.Output != want {
		t.Errorf("log from %d = %q, want %q", lg.FromLine, lg.Output, want)
	}

	p := mustP[PollResult](t, pt, "s", map[string]any{"action": "poll", "session_id": st.ProcessID})
	if p.Skipped == 0 || int64(len(p.Output))+p.Skipped != 588895 || !strings.HasSuffix(p.Output, "\n100000\n") || p.Note == "" {
		t.Errorf("poll: output %d bytes, skipped %d, note %q", len(p.Output), p.Skipped, p.Note)
	}
	p = mustP[PollResult](t, pt, "s", map[string]any{"action": "poll", "session_id": st.ProcessID})
	if p.Output != "" || p.Skipped != 0 {
		t.Errorf("second poll = %q, skipped %d", p.Output, p.Skipped)
	}
}

func TestBackgroundProcessCap(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{MaxProcesses: 2})
	dir := t.TempDir()
	a := bgStart(t, tr, "s", dir, "sleep 30.3333")
	bgStart(t, tr, "s", dir, "sleep 30.3333")
	_, err := bgCall(tr, "s", dir, "touch third")
	te := wantCode(t, err, tool.CodeInvalidArguments)
	for _, s := range []string{"kill", "wait", a.ProcessID} {
		if !strings.Contains(te.Message, s) {
			t.Errorf("message %q lacks %q", te.Message, s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "third")); !os.IsNotExist(err) {
		t.Error("the command over the cap ran")
	}
	// An exited process gives its slot up to a new one.
	mustP[KillResult](t, pt, "s", map[string]any{"action": "kill", "session_id": a.ProcessID})
	bgStart(t, tr, "s", dir, "sleep 30.3333")
	list := mustP[ListResult](t, pt, "s", map[string]any{"action": "list"})
	if len(list.Processes) != 2 {
		t.Errorf("list = %+v", list)
	}
	for _, p := range list.Processes {
		if p.ProcessID == a.ProcessID || p.Status != "running" {
			t.Errorf("list = %+v", list)
		}
	}
	tr.Close()
	waitGone(t, "30.3333")
}

func TestBackgroundRetention(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	tr, pt := newBackground(t, Options{Clock: clk})
	st := bgStart(t, tr, "s", t.TempDir(), "echo done")
	if !st.StartedAt.Equal(clk.Now()) {
		t.Errorf("started_at = %v", st.StartedAt)
	}
	clk.Advance(5 * time.Second)
	w := mustP[WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 5})
	if w.Status != "exited" || w.RuntimeSeconds != 5 {
		t.Fatalf("wait = %+v", w)
	}
	clk.Advance(29 * time.Minute)
	if list := mustP[ListResult](t, pt, "s", map[string]any{"action": "list"}); len(list.Processes) != 1 {
		t.Fatalf("after 29m list = %+v", list)
	}
	clk.Advance(2 * time.Minute)
	if list := mustP[ListResult](t, pt, "s", map[string]any{"action": "list"}); len(list.Processes) != 0 {
		t.Fatalf("after 31m list = %+v", list)
	}
	_, err := pcall(context.Background(), pt, "s", map[string]any{"action": "poll", "session_id": st.ProcessID})
	wantCode(t, err, tool.CodeNotFound)
}

func TestBackgroundSessionIsolation(t *testing.T) {
	t.Parallel()
	tr, pt := newBackground(t, Options{})
	st := bgStart(t, tr, "a", t.TempDir(), "echo up; sleep 30.4444")
	pollUntil(t, pt, "a", st.ProcessID, "up")
	before := len(alive(t, "30.4444"))
	if list := mustP[ListResult](t, pt, "b", map[string]any{"action": "list"}); len(list.Processes) != 0 {
		t.Errorf("session b sees %+v", list)
	}
	for _, action := range []string{"poll", "log", "wait", "kill", "write"} {
		_, err := pcall(context.Background(), pt, "b", map[string]any{"action": action, "session_id": st.ProcessID, "data": "x"})
		wantCode(t, err, tool.CodeNotFound)
	}
	if before == 0 || len(alive(t, "30.4444")) != before {
		t.Error("another session's kill reached the process")
	}
	// Forget kills the session's processes.
	tr.Forget("a")
	waitGone(t, "30.4444")
	_, err := pcall(context.Background(), pt, "a", map[string]any{"action": "poll", "session_id": st.ProcessID})
	wantCode(t, err, tool.CodeNotFound)
}

func TestCloseKillsEverything(t *testing.T) {
	t.Parallel()
	tr, _ := newBackground(t, Options{})
	dir := t.TempDir()
	bgStart(t, tr, "a", dir, "sleep 30.5555")
	bgStart(t, tr, "b", dir, "trap '' TERM; sleep 30.5555 & wait")
	// A process whose shell exited but left a child behind.
	bgStart(t, tr, "b", dir, "sleep 30.5555 & echo left")
	time.Sleep(200 * time.Millisecond)
	// Three sleeps, and the two commands whose shells still run, each a
	// guard shell and the subshell running the command (whose command
	// lines hold the marker too).
	if n := len(alive(t, "30.5555")); n != 7 {
		t.Fatalf("%d processes running, want 7", n)
	}
	start := time.Now()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > KillGrace+2*time.Second {
		t.Errorf("Close took %v", elapsed)
	}
	waitGone(t, "30.5555")
	_, err := bgCall(tr, "a", dir, "true")
	wantCode(t, err, tool.CodeUpstreamUnavailable)
	// Foreground commands still run.
	mustRun(t, tr, "a", dir, "true")
}

func TestBackgroundDeniedDoesNotStart(t *testing.T) {
	tr, pt := newBackground(t, Options{})
	dir := t.TempDir()
	var asked []string
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s", Workdir: dir, Approver: denyAll{&asked}})
	_, err := tr.Call(ctx, json.RawMessage(`{"command":"touch created","background":true}`))
	wantCode(t, err, tool.CodeDenied)
	if len(asked) != 1 || asked[0] != "touch created" {
		t.Errorf("asked %q", asked)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "created")); !os.IsNotExist(err) {
		t.Fatal("denied background command ran")
	}
	if list := mustP[ListResult](t, pt, "s", map[string]any{"action": "list"}); len(list.Processes) != 0 {
		t.Errorf("list = %+v", list)
	}
}

func TestBackgroundKeepsSessionDir(t *testing.T) {
	tr, pt := newBackground(t, Options{})
	base, sub := newTree(t)
	st := bgStart(t, tr, "s", base, "cd sub && pwd -P")
	w := mustP[WaitResult](t, pt, "s", map[string]any{"action": "wait", "session_id": st.ProcessID, "timeout": 5})
	if w.Output != sub+"\n" {
		t.Errorf("output = %q", w.Output)
	}
	if res := mustRun(t, tr, "s", base, "pwd -P"); res.Output != base+"\n" {
		t.Errorf("a background cd moved the session to %q", res.Output)
	}
}

func TestProcessArguments(t *testing.T) {
	tr, pt := newBackground(t, Options{})
	st := bgStart(t, tr, "s", t.TempDir(), "sleep 30.6666")
	for _, args := range []map[string]any{
		{"action": "poll"},
		{"action": "poll", "session_id": st.ProcessID, "process_id": "proc_other"},
		{"action": "log", "session_id": st.ProcessID, "limit": MaxLogLines + 1},
		{"action": "log", "session_id": st.ProcessID, "offset": -1},
		{"action": "write", "session_id": st.ProcessID},
		{"action": "dance", "session_id": st.ProcessID},
	} {
		_, err := pcall(context.Background(), pt, "s", args)
		te := wantCode(t, err, tool.CodeInvalidArguments)
		if te.Message == "" {
			t.Errorf("%v: empty message", args)
		}
	}
	_, err := pcall(context.Background(), pt, "s", map[string]any{"action": "poll", "session_id": "proc_nothere"})
	wantCode(t, err, tool.CodeNotFound)
	tr.Close()
	waitGone(t, "30.6666")
}

func TestProcessSpec(t *testing.T) {
	tr := New(Options{})
	pt := NewProcessTool(tr)
	s := pt.Spec()
	if s.Name != "process" || s.Toolset != "terminal" || s.ParallelSafe || s.Idempotent || s.Timeout <= MaxWait {
		t.Errorf("spec = %+v", s)
	}
	if !strings.Contains(s.Description, "poll") {
		t.Errorf("description not embedded")
	}
	for _, sp := range []tool.Spec{s, tr.Spec()} {
		if _, err := tool.CompileSchema(sp.Name, sp.Parameters); err != nil {
			t.Errorf("%s schema: %v", sp.Name, err)
		}
	}
}

func TestRingAccounting(t *testing.T) {
	var whole []byte
	r := newRing(100)
	sizes := []int{1, 7, 50, 99, 100, 101, 3, 250, 2, 64, 0, 33}
	n := 0
	for i := 0; i < 40; i++ {
		sz := sizes[i%len(sizes)]
		p := make([]byte, sz)
		for j := range p {
			p[j] = byte('a' + n%26)
			if n%7 == 0 {
				p[j] = '\n'
			}
			n++
		}
		r.Write(p)
		whole = append(whole, p...)

		v := r.view()
		keep := min(len(whole), 100)
		if string(v.data) != string(whole[len(whole)-keep:]) || v.total != int64(len(whole)) ||
			v.start != int64(len(whole)-keep) {
			t.Fatalf("step %d: view %+v", i, v)
		}
		gone := whole[:len(whole)-keep]
		if wantNL := int64(strings.Count(string(gone), "\n")); v.droppedNL != wantNL {
			t.Fatalf("step %d: droppedNL %d, want %d", i, v.droppedNL, wantNL)
		}
		if want := len(gone) > 0 && gone[len(gone)-1] != '\n'; v.midLine != want {
			t.Fatalf("step %d: midLine %v", i, v.midLine)
		}
	}
}

func TestRingSinceHoldsPartialRune(t *testing.T) {
	r := newRing(100)
	r.Write([]byte("ab\xe4\xbd"))
	text, next, skipped := r.since(0, 100, true)
	if text != "ab" || next != 2 || skipped != 0 {
		t.Fatalf("since = %q %d %d", text, next, skipped)
	}
	r.Write([]byte("\xa0!"))
	text, next, _ = r.since(next, 100, true)
	if text != "你!" || next != 6 {
		t.Fatalf("since = %q %d", text, next)
	}
}
