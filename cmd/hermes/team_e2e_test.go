package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// marketTeam is seed 003's team: a lead that only dispatches, a collector
// that reads the market page through a declared HTTP tool, an analyst and
// a report writer; the report goes to a webhook.
type marketTeam struct {
	h         *home
	srv       *llmtest.Server
	pageHits  atomic.Int32
	hooks     atomic.Int32
	mu        sync.Mutex
	hookBody  string
	hold      chan struct{} // the analyst's first reply waits for it, when set
	analysing chan struct{} // closed when the analyst is first asked
}

func newMarketTeam(t *testing.T) *marketTeam {
	m := &marketTeam{h: newHome(t), srv: llmtest.New(t), analysing: make(chan struct{})}
	m.srv.Handle(m.reply)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.pageHits.Add(1)
		fmt.Fprint(w, "Widget prices this week: Mon 41, Tue 42, Wed 43.")
	}))
	t.Cleanup(page.Close)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.hookBody = string(b)
		m.mu.Unlock()
		m.hooks.Add(1)
	}))
	t.Cleanup(hook.Close)
	if err := os.MkdirAll(filepath.Join(m.h.dir, "tools"), 0o700); err != nil {
		t.Fatal(err)
	}
	m.h.write("tools/market.yaml", `tools:
  - name: fetch_prices
    description: The week's widget prices, from the market page.
    parameters: {type: object, properties: {}}
    http:
      method: GET
      url: "${MARKET_URL}/prices"
`)
	m.h.write(".env", "MARKET_URL="+page.URL+"\n")
	m.h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_key: sk-test-123456}
delivery:
  retry_backoff: [10ms]
agents:
  lead: {description: plans the weekly report, system_prompt: "You are the lead."}
  collector: {description: reads the market pages, system_prompt: "You are the collector.", toolsets: [declared]}
  analyst: {description: finds the trend in the prices, system_prompt: "You are the analyst."}
  writer: {description: writes the report for the team, system_prompt: "You are the writer."}
teams:
  market:
    description: the weekly widget report
    coordinator: lead
    roles: [collector, analyst, writer]
    lease: 1s
    deliver: [webhook:%s/hook]
schedules:
  weekly:
    cron: "@weekly"
    team: market
    prompt: weekly widget report
`, m.srv.URL(), hook.URL))
	return m
}

func (m *marketTeam) flags() []string {
	return []string{"--api-mode", "chat_completions", "--base-url", m.srv.URL() + "/v1", "--model", "test-model", "--api-key", "sk-test-123456"}
}

func soulOf(r llmtest.Request) string {
	if len(r.Messages) > 0 && r.Messages[0].Role == llm.RoleSystem {
		for _, who := range []string{"lead", "collector", "analyst", "writer"} {
			if strings.Contains(r.Messages[0].Text(), "You are the "+who+".") {
				return who
			}
		}
	}
	return ""
}

func (m *marketTeam) reply(r llmtest.Request) llmtest.Reply {
	last := r.Messages[len(r.Messages)-1]
	switch soulOf(r) {
	case "lead":
		return leadReply(r, []string{"collector", "analyst", "writer"})
	case "collector":
		if last.Role == llm.RoleTool {
			return llmtest.Reply{Text: "collected: " + last.Text()}
		}
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "fetch_prices", Arguments: `{}`}}}
	case "analyst":
		m.mu.Lock()
		hold := m.hold
		m.hold = nil
		m.mu.Unlock()
		if hold != nil {
			close(m.analysing)
			<-hold
		}
		return llmtest.Reply{Text: "trend: up one a day (41, 42, 43)"}
	case "writer":
		return llmtest.Reply{Text: "REPORT: widget prices rose all week; trend: up one a day."}
	}
	return llmtest.Reply{Text: "who am I?"}
}

// leadReply plays a coordinator from the calls that returned: post the
// plan's roles one after the other, each on the last one's task, waiting
// for each, then read the last one's output and answer with it.
func leadReply(r llmtest.Request, plan []string) llmtest.Reply {
	call := func(name string, args any) llmtest.Reply {
		b, _ := json.Marshal(args)
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: name, Arguments: string(b)}}}
	}
	calls := map[string]string{}
	var names []string
	var results []map[string]any
	for _, msg := range r.Messages {
		for _, c := range msg.ToolCalls {
			calls[c.ID] = c.Name
		}
		var env struct {
			Status string         `json:"status"`
			Data   map[string]any `json:"data"`
		}
		if msg.Role != llm.RoleTool || json.Unmarshal([]byte(msg.Text()), &env) != nil || env.Status != "ok" {
			continue // not a result, or a call a crash cut off
		}
		names, results = append(names, calls[msg.ToolCallID]), append(results, env.Data)
	}
	posted := 0
	for _, n := range names {
		if n == "task_post" {
			posted++
		}
	}
	n := len(names)
	switch {
	case n == 0:
		return call("task_post", map[string]any{"role": plan[0], "description": "do the " + plan[0] + "'s part"})
	case names[n-1] == "task_post":
		return call("task_wait", map[string]any{"ids": []any{results[n-1]["task"]}})
	case names[n-1] == "task_wait":
		id := results[n-1]["tasks"].([]any)[0].(map[string]any)["task"]
		if posted < len(plan) {
			return call("task_post", map[string]any{"role": plan[posted], "description": "do the " + plan[posted] + "'s part", "inputs": []any{id}})
		}
		return call("artifact_read", map[string]any{"task": id, "name": "output"})
	}
	return llmtest.Reply{Text: results[n-1]["content"].(string)}
}

// killWhileAnalysing runs hermes with args, holding the analyst's first
// reply, kills it with SIGKILL once the analyst is asked, and returns
// what it wrote on stderr.
func (m *marketTeam) killWhileAnalysing(t *testing.T, args ...string) string {
	t.Helper()
	hold := make(chan struct{})
	m.mu.Lock()
	m.hold = hold
	m.mu.Unlock()
	cmd := exec.Command(hermesBin, args...)
	cmd.Env = m.h.env
	// A child hermes started (a shell) may outlive it a moment and hold
	// stderr open; Wait does not wait for it longer than this.
	cmd.WaitDelay = 5 * time.Second
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.analysing:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the analyst was never asked; stderr:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	close(hold)
	return stderr.String()
}

// asked counts the model requests made as who.
func (m *marketTeam) asked(who string) int {
	n := 0
	for _, r := range m.srv.Requests() {
		if soulOf(r) == who {
			n++
		}
	}
	return n
}

type teamStatus struct {
	State       string `json:"state"`
	Answer      string `json:"answer"`
	SessionID   string `json:"session_id"`
	Delivery    string `json:"delivered_to"`
	DeliveredAt string `json:"delivered_at"`
	Tasks       []struct {
		Role      string `json:"role"`
		State     string `json:"state"`
		Attempts  int    `json:"attempts"`
		SessionID string `json:"session_id"`
		Inputs    []int  `json:"inputs"`
	} `json:"tasks"`
}

// Seed 003's team end to end: hermes is killed with -9 while the analyst
// works; started again, it does not run the collector (nor read the page)
// again, claims the analyst's task again once its lease ran out, and
// delivers the report once, also when resumed a second time.
func TestTeamRunKilledAndResumedDeliversOnce(t *testing.T) {
	m := newMarketTeam(t)
	stderr := m.killWhileAnalysing(t, append([]string{"team", "run", "market", "weekly widget report"}, m.flags()...)...)
	if !strings.Contains(stderr, "team run 1 (market)") {
		t.Fatalf("the live view did not show the run:\n%s", stderr)
	}
	collectorCalls := m.asked("collector")
	if m.pageHits.Load() != 1 || collectorCalls != 2 || m.hooks.Load() != 0 {
		t.Fatalf("before the resume: page read %d times, collector asked %d times, %d deliveries", m.pageHits.Load(), collectorCalls, m.hooks.Load())
	}

	r := m.h.run(append([]string{"team", "resume", "1"}, m.flags()...))
	if r.code != 0 || !strings.Contains(r.stdout, "REPORT: widget prices rose all week") {
		t.Fatalf("resume: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !regexpMatch(`task 1 +collector +done`, r.stderr) || !regexpMatch(`task 3 +writer +done`, r.stderr) {
		t.Errorf("the live view did not show the tasks:\n%s", r.stderr)
	}
	if m.pageHits.Load() != 1 || m.asked("collector") != collectorCalls {
		t.Errorf("the collector ran again: page read %d times, collector asked %d times", m.pageHits.Load(), m.asked("collector"))
	}
	m.mu.Lock()
	body := m.hookBody
	m.mu.Unlock()
	if m.hooks.Load() != 1 || !strings.Contains(body, "REPORT: widget prices rose all week") {
		t.Errorf("the webhook got %d deliveries: %s", m.hooks.Load(), body)
	}
	var st teamStatus
	m.h.hermes("team", "status", "1", "--json").decode(t, &st)
	if st.State != "done" || !strings.HasPrefix(st.Delivery, "webhook") || st.DeliveredAt == "" || len(st.Tasks) != 3 {
		t.Fatalf("status: %+v", st)
	}
	for i, want := range []struct {
		role     string
		attempts int
	}{{"collector", 1}, {"analyst", 2}, {"writer", 1}} {
		tk := st.Tasks[i]
		if tk.Role != want.role || tk.State != "done" || tk.Attempts != want.attempts || tk.SessionID == "" {
			t.Errorf("task %d: %+v, want %s done after %d attempts", i+1, tk, want.role, want.attempts)
		}
	}
	if len(st.Tasks[2].Inputs) != 1 || st.Tasks[2].Inputs[0] != 2 {
		t.Errorf("the writer's inputs are %v, want the analyst's task", st.Tasks[2].Inputs)
	}
	// The analyst's prompt held the collector's output, fenced as data.
	for _, req := range m.srv.Requests() {
		if soulOf(req) == "analyst" && !strings.Contains(req.LastUserText(), "Widget prices this week") {
			t.Errorf("the analyst did not get the collector's output:\n%s", req.LastUserText())
		}
	}
	// A session of a task opens like any other.
	if r := m.h.hermes("sessions", "show", st.Tasks[1].SessionID); r.code != 0 || !strings.Contains(r.stdout, "trend: up one a day") {
		t.Errorf("sessions show of the analyst's task: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Resuming a finished run delivers nothing more.
	if r := m.h.run(append([]string{"team", "resume", "1"}, m.flags()...)); r.code != 0 || m.hooks.Load() != 1 {
		t.Errorf("resuming the finished run: exit %d, %d deliveries\n%s", r.code, m.hooks.Load(), r.stderr)
	}
	if r := m.h.hermes("team", "status", "1"); r.code != 0 || !regexpMatch(`2 +analyst +done +2/3`, r.stdout) {
		t.Errorf("status table:\n%s%s", r.stdout, r.stderr)
	}
}

// A scheduled job runs the team with its prompt as the goal and delivers
// the answer along the job's chain; the coordinator's offered tools are
// the queue's alone.
func TestCronJobRunsATeam(t *testing.T) {
	m := newMarketTeam(t)
	r := m.h.hermes("cron", "run", "weekly")
	if r.code != 0 || !strings.Contains(r.stdout, "REPORT: widget prices rose all week") {
		t.Fatalf("cron run: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	local, _ := os.ReadFile(filepath.Join(m.h.dir, "deliveries", "weekly.md"))
	if !strings.Contains(string(local), "REPORT: widget prices rose all week") {
		t.Errorf("the job's delivery does not hold the report:\n%s", local)
	}
	for _, req := range m.srv.Requests() {
		if soulOf(req) != "lead" {
			continue
		}
		var names []string
		for _, s := range req.Tools {
			names = append(names, s.Name)
		}
		if strings.Join(names, ",") != "artifact_read,task_post,task_wait" {
			t.Fatalf("the coordinator was offered %v", names)
		}
		if !strings.Contains(req.Messages[1].Text(), "weekly widget report") {
			t.Fatalf("the job's prompt is not the goal: %s", req.Messages[1].Text())
		}
	}
	if r := m.h.hermes("team", "list"); r.code != 0 || !regexpMatch(`1 +market +done`, r.stdout) {
		t.Errorf("team list:\n%s%s", r.stdout, r.stderr)
	}
}

// regexpMatch reports whether text matches the expression.
func regexpMatch(expr, text string) bool { return regexp.MustCompile(expr).MatchString(text) }
