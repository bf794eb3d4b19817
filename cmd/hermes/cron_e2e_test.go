package main

import (
	"context"
	"fmt"
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

	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/internal/smtptest"
	"github.com/hermes-go/hermes/internal/sqlitedb"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
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

// TestJobInactivityTimeout: a run whose model never answers is stopped
// after scheduler.inactivity_timeout, recorded as failed, and the failure
// is delivered rather than kept silent.
func TestJobInactivityTimeout(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	h.write("config.yaml", modelConfig(srv)+`agent: {api_max_retries: 0}
scheduler: {inactivity_timeout: 1s}
schedules:
  stuck:
    cron: "@hourly"
    prompt: summarize the night's alerts
    deliver: local
`)
	srv.Enqueue(llmtest.Reply{Text: "too late", Delay: time.Minute})
	start := time.Now()
	r := h.hermes("cron", "run", "stuck")
	if r.code == 0 || !strings.Contains(r.stderr, "no progress for 1s") {
		t.Fatalf("cron run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the stuck run took %s to stop", d)
	}
	runs := jobRuns(t, h, "stuck")
	if len(runs) != 1 || runs[0].Status != cron.StatusError || !strings.Contains(runs[0].Error, "no progress") {
		t.Fatalf("history = %+v", runs)
	}
	local, _ := os.ReadFile(filepath.Join(h.dir, "deliveries", "stuck.md"))
	if !strings.Contains(string(local), `"stuck" failed`) || !strings.Contains(string(local), "no progress for 1s") {
		t.Errorf("the failure was not delivered:\n%s", local)
	}
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

// startServe starts hermes serve in h and returns it with its log.
func startServe(t *testing.T, h *home) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	logs := &syncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, logs
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

// waitFile waits up to 10 s for path to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
	}
}

// TestServeShutdownGrace: on SIGTERM a running job gets
// scheduler.shutdown_timeout to finish; one that needs longer is
// cancelled, recorded as interrupted, and not delivered.
func TestServeShutdownGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hermes serve in real time")
	}
	for _, tc := range []struct {
		name, grace, sleep, status, output string
	}{
		{"finishes within the grace", "15s", "2", cron.StatusOK, "finished"},
		{"cancelled after the grace", "1s", "60", cron.StatusError, "interrupted by shutdown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			marker := filepath.Join(t.TempDir(), "started")
			h.write("config.yaml", fmt.Sprintf(`scheduler: {shutdown_timeout: %s}
schedules:
  slow:
    cron: "@every 2s"
    no_agent: true
    script: touch %s; sleep %s; echo finished
    deliver: local
`, tc.grace, marker, tc.sleep))
			cmd, logs := startServe(t, h)
			waitFile(t, marker)
			took := stopServe(t, cmd, logs, 30*time.Second)
			runs := jobRuns(t, h, "slow")
			var got []string
			for _, r := range runs {
				got = append(got, r.Status+": "+r.Output+r.Error)
			}
			if len(runs) != 1 || runs[0].Status != tc.status || !strings.Contains(runs[0].Output+runs[0].Error, tc.output) {
				t.Fatalf("runs = %q, want one %s run saying %q (stopped in %s)\n%s", got, tc.status, tc.output, took, logs.String())
			}
			local, _ := os.ReadFile(filepath.Join(h.dir, "deliveries", "slow.md"))
			if delivered := strings.Contains(string(local), "finished"); delivered != (tc.status == cron.StatusOK) {
				t.Errorf("delivered = %v for a %s run:\n%s", delivered, tc.status, local)
			}
		})
	}
}

// TestTwoServesFireOnce: two hermes serve processes on one home fire each
// of an @every 2s job's fires exactly once between them.
func TestTwoServesFireOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hermes serve in real time")
	}
	h := newHome(t)
	h.write("config.yaml", `schedules:
  tick: {cron: "@every 2s", no_agent: true, script: echo tick, deliver: local}
`)
	a, alogs := startServe(t, h)
	b, blogs := startServe(t, h)
	time.Sleep(7 * time.Second)
	stopServe(t, a, alogs, 20*time.Second)
	stopServe(t, b, blogs, 20*time.Second)
	runs := jobRuns(t, h, "tick")
	seen := map[time.Time]int{}
	ok := 0
	for _, r := range runs {
		seen[r.ScheduledFor]++
		if r.Status == cron.StatusOK {
			ok++
		}
	}
	for at, n := range seen {
		if n > 1 {
			t.Errorf("the fire of %s ran %d times", at.Format(time.RFC3339Nano), n)
		}
	}
	if ok < 2 {
		t.Errorf("%d ok runs in 7 s, want at least 2:\n%s\n%s", ok, alogs.String(), blogs.String())
	}
}

// TestServeRunsAgentJob: hermes serve runs an agent job in a job process
// of its own; the reply is delivered and the run names its session.
func TestServeRunsAgentJob(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hermes serve in real time")
	}
	h := newHome(t)
	srv := llmtest.New(t)
	h.write("config.yaml", modelConfig(srv)+`schedules:
  brief: {cron: "@every 2s", prompt: write the morning brief, deliver: local}
`)
	srv.Enqueue(llmtest.Reply{Text: "Morning brief: all green."})
	cmd, logs := startServe(t, h)
	waitFile(t, filepath.Join(h.dir, "deliveries", "brief.md"))
	stopServe(t, cmd, logs, 30*time.Second)
	runs := jobRuns(t, h, "brief")
	var first cron.Run
	for _, r := range runs {
		if r.Status == cron.StatusOK {
			first = r
		}
	}
	if first.SessionID == "" || !strings.Contains(first.Output, "all green") {
		t.Fatalf("runs = %+v\n%s", runs, logs.String())
	}
	if got := srv.Requests()[0].LastUserText(); !strings.Contains(got, "morning brief") {
		t.Errorf("the model got %q", got)
	}
	if r := h.hermes("sessions", "show", first.SessionID); r.code != 0 || !strings.Contains(r.stdout, "all green") {
		t.Errorf("the run's session: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(logs.String(), `"msg":"turn finished"`) || !strings.Contains(logs.String(), `"session_id":"`+first.SessionID) {
		t.Errorf("the job process did not log the turn as JSON with its session:\n%s", logs.String())
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

// TestServeJobProcessDies: a job process killed mid-run (out of memory,
// say) cannot report; serve records the run failed and delivers the
// notice itself, so the failure is not silent.
func TestServeJobProcessDies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hermes serve in real time")
	}
	h := newHome(t)
	// The script's parent is the job process.
	h.write("config.yaml", `schedules:
  doomed: {cron: "@every 2s", no_agent: true, script: "kill -9 $PPID; sleep 5", deliver: local}
`)
	cmd, logs := startServe(t, h)
	notice := filepath.Join(h.dir, "deliveries", "doomed.md")
	waitFile(t, notice)
	stopServe(t, cmd, logs, 30*time.Second)
	data, _ := os.ReadFile(notice)
	if !strings.Contains(string(data), `"doomed" failed`) || !strings.Contains(string(data), "ended without a result") {
		t.Errorf("the notice:\n%s", data)
	}
	runs := jobRuns(t, h, "doomed")
	if len(runs) == 0 || runs[len(runs)-1].Status != cron.StatusError {
		t.Errorf("runs = %+v", runs)
	}
}

// TestServeReloadsSchedules: a job added to config.yaml while hermes serve
// runs starts firing without a restart; a config.yaml that breaks is
// logged and the jobs stay as they were.
func TestServeReloadsSchedules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hermes serve in real time")
	}
	h := newHome(t)
	h.write("config.yaml", `schedules:
  weekly: {cron: 0 9 * * MON, no_agent: true, script: echo weekly}
`)
	cmd, logs := startServe(t, h)
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s:\n%s", what, logs.String())
			}
		}
	}
	waitFor("serve to start", func() bool { return strings.Contains(logs.String(), "hermes serve started") })
	h.write("config.yaml", `schedules:
  weekly: {cron: 0 9 * * MON, no_agent: true, script: echo weekly}
  tick: {cron: "@every 2s", no_agent: true, script: echo tick, deliver: local}
`)
	waitFile(t, filepath.Join(h.dir, "deliveries", "tick.md"))
	if !strings.Contains(logs.String(), `"msg":"schedules reloaded from config.yaml","added":["tick"]`) {
		t.Errorf("the reload was not logged:\n%s", logs.String())
	}
	h.write("config.yaml", "schedules:\n  tick: {cron: \"@every 2s\", no_agent: true, script: [oops\n")
	waitFor("the broken config to be logged", func() bool { return strings.Contains(logs.String(), "does not load; the jobs stay as they were") })
	fired := len(jobRuns(t, h, "tick"))
	waitFor("tick to fire on after the broken edit", func() bool { return len(jobRuns(t, h, "tick")) > fired })
	stopServe(t, cmd, logs, 30*time.Second)
}
