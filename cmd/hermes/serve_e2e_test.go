package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// modelConfig points config.yaml's model at srv.
func modelConfig(srv *llmtest.Server) string {
	return "model: {base_url: \"" + srv.URL() + "/v1\", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}\n"
}

// TestServeFiresAndStops is the real-time smoke test of the binary: hermes
// serve prints the zone and the jobs, an @every 1s job fires twice in job
// processes of their own and is delivered, and SIGTERM stops serve
// cleanly. How the scheduler keeps time is tested on a fake clock in app.
func TestServeFiresAndStops(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", `schedules:
  tick:
    cron: "@every 1s"
    no_agent: true
    script: date +%s
    deliver: local
`)
	cmd := exec.Command(hermesBin, "serve")
	cmd.Env, cmd.Dir = h.env, h.dir
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	sc := bufio.NewScanner(stdout)
	var head []string
	for len(head) < 3 && sc.Scan() {
		head = append(head, sc.Text())
	}
	go io.Copy(io.Discard, stdout)
	if len(head) == 0 || !strings.HasPrefix(head[0], "time zone: ") || !strings.Contains(strings.Join(head, "\n"), "tick") {
		t.Errorf("serve did not print the zone and the jobs first:\n%s", strings.Join(head, "\n"))
	}
	// Serve's JSON log says when each run has finished.
	var logs syncBuffer
	twice := make(chan struct{})
	go func() {
		runs := 0
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			logs.Write(append(lines.Bytes(), '\n'))
			if strings.Contains(lines.Text(), `"msg":"cron: run finished"`) {
				if runs++; runs == 2 {
					close(twice)
				}
			}
		}
	}()
	select {
	case <-twice:
	case <-time.After(30 * time.Second):
		t.Fatalf("two runs did not finish in 30 s:\n%s", logs.String())
	}
	stopServe(t, cmd, &logs, 20*time.Second)
	data, err := os.ReadFile(filepath.Join(h.dir, "deliveries", "tick.md"))
	if n := strings.Count("\n"+string(data), "\n## "); err != nil || n < 2 {
		// Each delivery is one entry under a heading.
		t.Errorf("%d deliveries, want at least 2 (%v):\n%s\nlogs:\n%s", n, err, data, logs.String())
	}
	if !strings.Contains(logs.String(), `"msg":"hermes serve stopped"`) {
		t.Errorf("no JSON log of the stop:\n%s", logs.String())
	}
}

// TestCronRunByHand runs an agent job in the foreground: its reply goes to
// a webhook and the run is in the history; a reply starting with [SILENT]
// is stored and not delivered.
func TestCronRunByHand(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	var mu sync.Mutex
	var hooked []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		hooked = append(hooked, string(body))
		mu.Unlock()
	}))
	defer hook.Close()
	h.write("config.yaml", modelConfig(srv)+`timezone: Asia/Shanghai
schedules:
  weekly_competitor_report:
    cron: 0 9 * * MON
    session_type: new
    deliver: webhook:`+hook.URL+`
    prompt: 整理本周竞品动态，5 条以内。
  quiet:
    cron: "@hourly"
    deliver: webhook:`+hook.URL+`
    prompt: check, and stay quiet if nothing changed
`)
	srv.Enqueue(llmtest.Reply{Text: "- 竞品 A 发布了新版本"}, llmtest.Reply{Text: "[SILENT] nothing changed"})
	r := h.hermes("cron", "list")
	if !strings.Contains(r.stdout, "time zone: Asia/Shanghai") || !strings.Contains(r.stdout, "CST") || !strings.Contains(r.stdout, "weekly_competitor_report") {
		t.Errorf("cron list:\n%s%s", r.stdout, r.stderr)
	}
	r = h.hermes("cron", "run", "weekly_competitor_report")
	if r.code != 0 || !strings.Contains(r.stdout, "竞品 A") || !strings.Contains(r.stdout, "webhook:") {
		t.Fatalf("cron run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := srv.Requests()[0].LastUserText(); !strings.Contains(got, "整理本周竞品动态") {
		t.Errorf("the job's prompt was not the first message: %q", got)
	}
	r = h.hermes("cron", "run", "quiet")
	if r.code != 0 || !strings.Contains(r.stdout, "[SILENT]") {
		t.Errorf("silent run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	mu.Lock()
	if len(hooked) != 1 || !strings.Contains(hooked[0], "竞品 A") {
		t.Errorf("the webhook got %q; want only the first job's reply", hooked)
	}
	mu.Unlock()
	if r := h.hermes("cron", "history", "quiet"); !strings.Contains(r.stdout, "silent") {
		t.Errorf("history:\n%s", r.stdout)
	}
	if r := h.hermes("cron", "run", "nope"); r.code == 0 || !strings.Contains(r.stderr, `no job "nope"`) {
		t.Errorf("unknown job: exit %d %s", r.code, r.stderr)
	}
}

// TestSeedWeeklyReportJob is seed 003's flagship job end to end: fetch the
// competitor's news page (a local page here), write at most five bullets,
// and post them to a WeCom group robot, whose documented message format
// the fake robot checks.
func TestSeedWeeklyReportJob(t *testing.T) {
	h := newHome(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<html><head><title>Competitor news</title></head><body><article><h1>News</h1>
<p>2026-11-30: Competitor launches Model X with offline mode, priced at 99 yuan per month for small teams.</p>
<p>2026-11-28: Competitor opens a new data center in Singapore to serve customers in South-East Asia.</p></article></body></html>`)
	}))
	defer page.Close()
	var mu sync.Mutex
	var posted []map[string]any
	robot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg map[string]any
		if r.URL.Path != "/cgi-bin/webhook/send" || r.URL.Query().Get("key") != "robot-key-1" || json.NewDecoder(r.Body).Decode(&msg) != nil {
			io.WriteString(w, `{"errcode":93000,"errmsg":"invalid webhook url"}`)
			return
		}
		mu.Lock()
		posted = append(posted, msg)
		mu.Unlock()
		io.WriteString(w, `{"errcode":0,"errmsg":"ok"}`)
	}))
	defer robot.Close()
	srv := llmtest.New(t)
	h.write("config.yaml", modelConfig(srv)+`security: {allow_private_urls: true}
schedules:
  weekly_competitor_report:
    cron: 0 9 * * MON
    session_type: new
    deliver: wecom:`+robot.URL+`/cgi-bin/webhook/send?key=robot-key-1
    prompt: |
      请先抓取 `+page.URL+` 的页面内容，
      找出最近一周的新产品动态和公告，整理成 5 条以内的简要列表，
      最后发送到企业微信群。
`)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "web_extract", Arguments: `{"urls":["` + page.URL + `"]}`}}},
		llmtest.Reply{Text: "本周竞品动态：\n- 发布 Model X，支持离线模式，每月 99 元\n- 新加坡新数据中心启用"},
	)
	r := h.hermes("cron", "run", "weekly_competitor_report")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if res := lastToolResult(t, srv, 1); !strings.Contains(res, "Model X") {
		t.Errorf("the page did not reach the model: %s", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posted) != 1 {
		t.Fatalf("the robot got %d messages:\n%s", len(posted), r.stdout)
	}
	md, _ := posted[0]["markdown"].(map[string]any)
	content, _ := md["content"].(string)
	if posted[0]["msgtype"] != "markdown" || !strings.Contains(content, "Model X") || !strings.Contains(content, "新加坡") {
		t.Errorf("the WeCom message = %v", posted[0])
	}
}

// TestCronjobTool: the model schedules a job in a chat; it is listed with
// its next fire; inside a scheduled job the tool is refused.
func TestCronjobTool(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	h.write("config.yaml", modelConfig(srv)+"timezone: America/New_York\n")
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "cronjob", Arguments: `{"action":"create","name":"standup","schedule":"0 9 * * 1-5","prompt":"Schedule another job.","deliver":["local"]}`}}},
		llmtest.Reply{Text: "Scheduled."},
	)
	h.chatIn(srv, t.TempDir(), "every weekday at 9, remind me of the standup")
	if res := lastToolResult(t, srv, 1); !strings.Contains(res, `"status":"ok"`) || !strings.Contains(res, `"next_run"`) {
		t.Fatalf("cronjob create: %s", res)
	}
	if r := h.hermes("cron", "list"); !strings.Contains(r.stdout, "standup") || !strings.Contains(r.stdout, "09:00 E") {
		t.Errorf("cron list:\n%s%s", r.stdout, r.stderr)
	}
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "cronjob", Arguments: `{"action":"create","name":"again","schedule":"@hourly","prompt":"x"}`}}},
		llmtest.Reply{Text: "could not"},
	)
	if r := h.hermes("cron", "run", "standup"); r.code != 0 {
		t.Fatalf("cron run: exit %d %s", r.code, r.stderr)
	}
	if res := lastToolResult(t, srv, len(srv.Requests())-1); !strings.Contains(res, "not available inside a scheduled job") {
		t.Errorf("the cronjob tool inside a job: %s", res)
	}
}

func TestCronCommands(t *testing.T) {
	h := newHome(t)
	if r := h.hermes("cron", "create", "backup", "--schedule", "every 6h", "--prompt", "check backups", "--deliver", "local"); r.code != 0 || !strings.Contains(r.stdout, "created backup; next fire") {
		t.Fatalf("create: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	h.hermes("cron", "pause", "backup")
	if r := h.hermes("cron", "list"); !strings.Contains(r.stdout, "paused") {
		t.Errorf("a paused job:\n%s", r.stdout)
	}
	h.hermes("cron", "resume", "backup")
	if r := h.hermes("cron", "remove", "backup"); r.code != 0 || !strings.Contains(r.stdout, "backup: removed") {
		t.Errorf("remove: exit %d %s", r.code, r.stderr)
	}
	r := h.hermes("cron", "create", "bad", "--schedule", "0 9 * * MONDAY", "--prompt", "x")
	if r.code == 0 || !strings.Contains(r.stderr, `job "bad"`) || !strings.Contains(r.stderr, `e.g. "0 9 * * MON"`) {
		t.Errorf("a bad schedule: exit %d %s", r.code, r.stderr)
	}
}
