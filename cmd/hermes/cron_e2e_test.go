package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/smtptest"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// TestJobDeliveryChain: a job's result goes down its deliver: chain. The
// webhook answers 500 on every try, so the chain moves on to e-mail on a
// real SMTP server; when the SMTP server is down too, the local file
// takes it. Every attempt is recorded on the run.
func TestJobDeliveryChain(t *testing.T) {
	var hookTries atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hookTries.Add(1)
		http.Error(w, "upstream broke", http.StatusInternalServerError)
	}))
	defer hook.Close()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	downAddr := closed.Addr().String()
	closed.Close()
	for _, tc := range []struct {
		name      string
		smtpUp    bool
		delivered string
	}{
		{"email takes it", true, "email:ops@example.com"},
		{"the local file takes it", false, "local"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hookTries.Store(0)
			h := newHome(t)
			addr := downAddr
			var ms *smtptest.Server
			if tc.smtpUp {
				ms = smtptest.Start(t, "hermes", "smtp-pass-123")
				addr = ms.Addr
			}
			host, port, _ := net.SplitHostPort(addr)
			h.write("config.yaml", fmt.Sprintf(`delivery:
  retry_backoff: [10ms, 10ms]
  smtp: {host: %s, port: %s, username: hermes, password: smtp-pass-123, from: hermes@example.com}
schedules:
  disk:
    cron: "@daily"
    no_agent: true
    script: echo "disk 81%% full on /srv"
    deliver: [webhook:%s/hook, email:ops@example.com, local]
`, host, port, hook.URL))
			r := h.hermes("cron", "run", "disk")
			if r.code != 0 || !strings.Contains(r.stdout, "disk 81% full") {
				t.Fatalf("cron run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if n := hookTries.Load(); n != 3 {
				t.Errorf("the webhook was tried %d times, want 3 (one try and two retries)", n)
			}
			if tc.smtpUp {
				mails := ms.Received()
				if len(mails) != 1 || !strings.Contains(string(mails[0].Data), "disk 81% full") {
					t.Errorf("the SMTP server got %d mails: %v", len(mails), mails)
				}
			}
			local, _ := os.ReadFile(filepath.Join(h.dir, "deliveries", "disk.md"))
			if got := strings.Contains(string(local), "disk 81% full"); got != !tc.smtpUp {
				t.Errorf("the local file has the result: %v, want %v:\n%s", got, !tc.smtpUp, local)
			}
			runs := jobRuns(t, h, "disk")
			if len(runs) != 1 || runs[0].Status != cron.StatusOK || deliveredTo(runs[0]) != tc.delivered {
				t.Fatalf("history = %+v, want one ok run delivered to %s", runs, tc.delivered)
			}
			failed := 0
			for _, d := range runs[0].Deliveries {
				if strings.HasPrefix(d.Target, "webhook:") && !d.OK {
					failed++
				}
			}
			if failed != 3 {
				t.Errorf("recorded webhook failures = %d, want 3: %+v", failed, runs[0].Deliveries)
			}
			if r := h.hermes("cron", "status"); !strings.Contains(r.stdout, "disk") || !strings.Contains(r.stdout, tc.delivered) {
				t.Errorf("cron status:\n%s%s", r.stdout, r.stderr)
			}
			if r := h.hermes("cron", "show", "disk"); !strings.Contains(r.stdout, "last run (") || !strings.Contains(r.stdout, "disk 81% full on /srv") {
				t.Errorf("cron show does not give the last run's output:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
}

// jobRuns reads a job's history from the home's state.db.
func jobRuns(t *testing.T, h *home, job string) []cron.Run {
	t.Helper()
	db, err := sqlitedb.Open(context.Background(), filepath.Join(h.dir, "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := cron.NewStore(db, cron.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.History(context.Background(), job, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestJobOwnModelAndToolsets: a job that names a model and toolsets calls
// that model and is offered only those tools.
func TestJobOwnModelAndToolsets(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	h.write("config.yaml", modelConfig(srv)+`schedules:
  news:
    cron: "@daily"
    model: small-model
    toolsets: [web]
    prompt: what's new
    deliver: local
`)
	srv.Enqueue(llmtest.Reply{Text: "nothing new"})
	if r := h.hermes("cron", "run", "news"); r.code != 0 {
		t.Fatalf("cron run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	req := srv.Requests()[0]
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
	}
	if req.Model != "small-model" {
		t.Errorf("model = %q, want the job's small-model", req.Model)
	}
	if !strings.Contains(strings.Join(names, " "), "web_extract") || strings.Contains(strings.Join(names, " "), "terminal") {
		t.Errorf("tools offered = %v, want the web toolset only", names)
	}
}

// TestServeCheck: hermes serve --check prints the next fires of good jobs
// and exits non-zero, naming the job, on a bad one.
func TestServeCheck(t *testing.T) {
	h := newHome(t)
	model := "model: {base_url: \"http://127.0.0.1:9/v1\", default: m, api_key: sk-test-123456}\n"
	h.write("config.yaml", model+`timezone: Asia/Shanghai
schedules:
  weekly: {cron: 0 9 * * MON, prompt: report, deliver: local}
`)
	if r := h.hermes("serve", "--check"); r.code != 0 || !strings.Contains(r.stdout, "weekly") || !strings.Contains(r.stdout, "09:00 CST") {
		t.Errorf("good jobs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct{ job, want string }{
		{`{cron: 61 * * * *, prompt: x}`, `job "bad"`},
		{`{cron: "@daily", timezone: Mars/Olympus, prompt: x}`, "Mars/Olympus"},
		{`{cron: "@daily", prompt: x, deliver: "pager:42"}`, `job "bad": deliver[0]`},
	} {
		h.write("config.yaml", model+"schedules:\n  bad: "+tc.job+"\n")
		if r := h.hermes("serve", "--check"); r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr does not name %q:\n%s", tc.job, r.code, tc.want, r.stderr)
		}
	}
	// An agent job with no model to call fails the check; a script job
	// needs none.
	h.write("config.yaml", `schedules:
  report: {cron: "@daily", prompt: x}
  disk: {cron: "@daily", no_agent: true, script: df}
`)
	if r := h.hermes("serve", "--check"); r.code == 0 || !strings.Contains(r.stderr, `job "report" needs a model`) || strings.Contains(r.stderr, `"disk"`) {
		t.Errorf("no model: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCronShowEditStatus covers the commands that look at and change
// jobs: show, edit (runtime jobs only) and status.
func TestCronShowEditStatus(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", `schedules:
  declared: {cron: "@daily", prompt: from the file}
`)
	if r := h.hermes("cron", "create", "backup", "--schedule", "every 6h", "--prompt", "check backups", "--deliver", "local"); r.code != 0 {
		t.Fatalf("create: exit %d %s", r.code, r.stderr)
	}
	r := h.hermes("cron", "edit", "backup", "--prompt", "check backups and disk space", "--catch-up", "skip")
	if r.code != 0 || !strings.Contains(r.stdout, "changed backup") {
		t.Fatalf("edit: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	r = h.hermes("cron", "show", "backup")
	for _, want := range []string{"check backups and disk space", "every 6h", "catch up:", "skip", "state.db"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show does not say %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
	if r := h.hermes("cron", "edit", "declared", "--prompt", "x"); r.code == 0 || !strings.Contains(r.stderr, "config") {
		t.Errorf("editing a config job: exit %d %s", r.code, r.stderr)
	}
	if r := h.hermes("cron", "edit", "backup", "--schedule", "every fortnight"); r.code == 0 || !strings.Contains(r.stderr, `job "backup"`) {
		t.Errorf("a bad edit: exit %d %s", r.code, r.stderr)
	}
	if r := h.hermes("cron", "edit", "backup"); r.code == 0 || !strings.Contains(r.stderr, "nothing to change") {
		t.Errorf("an empty edit: exit %d %s", r.code, r.stderr)
	}
	r = h.hermes("cron", "status")
	if !strings.Contains(r.stdout, "scheduler: not running") || !strings.Contains(r.stdout, "backup") || !strings.Contains(r.stdout, "never") {
		t.Errorf("status:\n%s%s", r.stdout, r.stderr)
	}
}

// stopServe sends SIGTERM and waits up to limit for a clean exit.
func stopServe(t *testing.T, cmd *exec.Cmd, logs *syncBuffer, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("hermes serve after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(limit):
		cmd.Process.Kill()
		t.Fatalf("hermes serve did not stop within %s of SIGTERM:\n%s", limit, logs.String())
	}
	return time.Since(start)
}

// TestJobProcess: hermes serve runs each job in a job process ("hermes
// cron exec": the job as JSON on stdin, the result as one JSON line on
// stdout, JSON logs on stderr); the reply is delivered and the run names
// its session.
func TestJobProcess(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	h.write("config.yaml", modelConfig(srv))
	srv.Enqueue(llmtest.Reply{Text: "Morning brief: all green.", Usage: &llm.Usage{InputTokens: 300, OutputTokens: 9}})
	cmd := exec.Command(hermesBin, "cron", "exec", "--scheduled", "2026-12-07T09:00:00+08:00")
	cmd.Env = h.env
	job, _ := json.Marshal(cron.Job{Name: "brief", Spec: cron.Spec{Prompt: "write the morning brief", Deliver: []string{"local"}}})
	cmd.Stdin = bytes.NewReader(job)
	var logs bytes.Buffer
	cmd.Stderr = &logs
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cron exec: %v\n%s", err, logs.String())
	}
	var res app.ExecResult
	if err := json.Unmarshal(out, &res); err != nil || res.Error != "" || res.SessionID == "" || !strings.Contains(res.Output, "all green") {
		t.Fatalf("cron exec printed %s (%v)\n%s", out, err, logs.String())
	}
	if len(res.Deliveries) != 1 || res.Deliveries[0].Target != "local" || !res.Deliveries[0].OK {
		t.Errorf("deliveries = %+v", res.Deliveries)
	}
	// What the run used goes to serve, whose /metrics counts it.
	if len(res.Usage) != 1 || res.Usage[0].Input != 300 || res.Usage[0].Output != 9 || res.Usage[0].User != "local" {
		t.Errorf("usage = %+v, want the turn's 300 tokens in and 9 out", res.Usage)
	}
	if got := srv.Requests()[0].LastUserText(); !strings.Contains(got, "morning brief") {
		t.Errorf("the model got %q", got)
	}
	if r := h.hermes("sessions", "show", res.SessionID); r.code != 0 || !strings.Contains(r.stdout, "all green") {
		t.Errorf("the run's session: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(logs.String(), `"msg":"turn finished"`) || !strings.Contains(logs.String(), `"session_id":"`+res.SessionID) {
		t.Errorf("the job process did not log the turn as JSON with its session:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "warning:") {
		t.Errorf("the job process printed configuration warnings among its JSON logs:\n%s", logs.String())
	}
}

// TestJobApprovalsCronMode: nobody can approve a dangerous command in a
// scheduled job, so approvals.cron_mode decides: denied by default, run
// when set to allow.
func TestJobApprovalsCronMode(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		removed bool
	}{{"", false}, {"allow", true}} {
		t.Run("cron_mode="+tc.mode, func(t *testing.T) {
			h := newHome(t)
			srv := llmtest.New(t)
			target := filepath.Join(t.TempDir(), "build")
			if err := os.MkdirAll(filepath.Join(target, "obj"), 0o755); err != nil {
				t.Fatal(err)
			}
			approvals := ""
			if tc.mode != "" {
				approvals = "approvals: {cron_mode: " + tc.mode + "}\n"
			}
			h.write("config.yaml", modelConfig(srv)+approvals+`schedules:
  clean: {cron: "@daily", prompt: clean the build directory, deliver: local}
`)
			srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + target)}}, llmtest.Reply{Text: "done"})
			if r := h.hermes("cron", "run", "clean"); r.code != 0 {
				t.Fatalf("cron run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			_, err := os.Stat(target)
			if removed := os.IsNotExist(err); removed != tc.removed {
				t.Errorf("removed = %v, want %v; the tool said %s", removed, tc.removed, lastToolResult(t, srv, 1))
			}
			if !tc.removed && !strings.Contains(lastToolResult(t, srv, 1), "denied") {
				t.Errorf("the model was not told the command was denied: %s", lastToolResult(t, srv, 1))
			}
		})
	}
}

// TestJobContinueSession: a session_type: continue job carries one
// conversation across its runs; a new job starts fresh each time.
func TestJobContinueSession(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	h.write("config.yaml", modelConfig(srv)+`schedules:
  diary: {cron: "@daily", session_type: continue, prompt: note the day, deliver: local}
  fresh: {cron: "@daily", prompt: note the day, deliver: local}
`)
	srv.Enqueue(llmtest.Reply{Text: "day one noted"}, llmtest.Reply{Text: "day two noted"},
		llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"})
	for _, job := range []string{"diary", "diary", "fresh", "fresh"} {
		if r := h.hermes("cron", "run", job); r.code != 0 {
			t.Fatalf("cron run %s: exit %d\n%s", job, r.code, r.stderr)
		}
	}
	reqs := srv.Requests()
	users := func(i int) int {
		n := 0
		for _, m := range reqs[i].Messages {
			if m.Role == llm.RoleUser {
				n++
			}
		}
		return n
	}
	if users(1) != 2 || !strings.Contains(fmt.Sprint(reqs[1].Messages), "day one noted") {
		t.Errorf("the continuing job's second run did not carry the first: %d user messages", users(1))
	}
	if users(3) != 1 {
		t.Errorf("a new-session job's second run has %d user messages, want 1", users(3))
	}
	runs := jobRuns(t, h, "diary")
	if len(runs) != 2 {
		t.Fatalf("%d diary runs, want 2", len(runs))
	}
	if runs[0].SessionID != runs[1].SessionID {
		t.Errorf("the diary runs are in sessions %q and %q, want one", runs[0].SessionID, runs[1].SessionID)
	}
}

// TestJobSkills: a job's skills are loaded before its prompt; a skill
// that does not exist fails the run and says which.
func TestJobSkills(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	h.write("config.yaml", modelConfig(srv)+`schedules:
  report: {cron: "@weekly", skills: [weekly-report-job], prompt: write this week's report, deliver: local}
  typo: {cron: "@weekly", skills: [weekly-reprot-job], prompt: x, deliver: local}
`)
	srv.Enqueue(llmtest.Reply{Text: "report"})
	if r := h.hermes("cron", "run", "report"); r.code != 0 {
		t.Fatalf("cron run: exit %d\n%s", r.code, r.stderr)
	}
	first := srv.Requests()[0].LastUserText()
	if !strings.Contains(first, `<skill name="weekly-report-job">`) || !strings.HasSuffix(strings.TrimSpace(first), "write this week's report") {
		t.Errorf("the first message does not load the skill before the prompt:\n%s", first)
	}
	if r := h.hermes("cron", "run", "typo"); r.code == 0 || !strings.Contains(r.stderr, `skill "weekly-reprot-job"`) {
		t.Errorf("an unknown skill: exit %d %s", r.code, r.stderr)
	}
}

// TestJobProcessDies: a job process killed mid-run (out of memory, say)
// cannot report; serve's side of it records the run failed and delivers
// the notice itself, so the failure is not silent.
func TestJobProcessDies(t *testing.T) {
	h := newHome(t)
	t.Setenv("HERMES_HOME", h.dir)
	t.Setenv("HERMES_MEMORY_LONG_TERM", "false")
	p := &app.ProcRunner{Exe: hermesBin, Stderr: io.Discard, Log: slog.New(slog.DiscardHandler),
		Notifier: notify.New(notify.Config{Home: h.dir})}
	// The script's parent is the job process.
	job := cron.Job{Name: "doomed", Spec: cron.Spec{NoAgent: true, Script: "kill -9 $PPID; sleep 5", Deliver: []string{"local"}}}
	res := p.Run(context.Background(), job, time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	if res.Err == nil || !strings.Contains(res.Err.Error(), "ended without a result") {
		t.Fatalf("result = %+v", res)
	}
	data, _ := os.ReadFile(filepath.Join(h.dir, "deliveries", "doomed.md"))
	if !strings.Contains(string(data), `"doomed" failed`) || !strings.Contains(string(data), "ended without a result") {
		t.Errorf("the notice:\n%s", data)
	}
}
