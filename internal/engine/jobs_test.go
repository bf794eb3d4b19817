package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/skill"
	"github.com/hermes-go/hermes/internal/tool"
)

// jobRig is an engine with a job store, a notifier delivering to the
// local file only, and a skills library of one skill.
type jobRig struct {
	e    *engine.Engine
	srv  *llmtest.Server
	jobs *cron.Store
	home string
}

func newJobRig(t *testing.T) *jobRig {
	t.Helper()
	srv := llmtest.New(t)
	st, db := openStore(t)
	jobs, err := cron.NewStore(db, cron.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dir := filepath.Join(home, "skills", "ops", "weekly-report")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	skillText := "---\nname: weekly-report\ndescription: How the weekly report is written.\n---\nFive bullets, newest first.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillText), 0o600); err != nil {
		t.Fatal(err)
	}
	e := engine.New(engine.Options{
		Store: st, Models: model(srv), Tools: engine.Tools{Registry: tool.NewRegistry()},
		Prompt: engine.PromptSources{Skills: skill.Open(skill.Options{Dir: filepath.Join(home, "skills")})},
		Jobs:   engine.Jobs{Store: jobs, Notifier: notify.New(notify.Config{Home: home})},
	})
	t.Cleanup(e.Close)
	return &jobRig{e: e, srv: srv, jobs: jobs, home: home}
}

func (r *jobRig) delivered(t *testing.T, job string) string { return delivered(t, r.home, job) }

// delivered is what the local target of home holds for job.
func delivered(t *testing.T, home, job string) string {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(home, "deliveries", job+".md"))
	return string(data)
}

func TestRunJobScriptTurnAndDelivery(t *testing.T) {
	r := newJobRig(t)
	r.srv.Enqueue(llmtest.Reply{Text: "- 竞品 A 发布了新版本"})
	job := cron.Job{Name: "report", Spec: cron.Spec{Prompt: "整理本周竞品动态", Script: "echo 3 new posts", Skills: []string{"weekly-report"}}}
	res := r.e.RunJob(context.Background(), job, time.Now())
	if res.Err != nil || res.Output != "- 竞品 A 发布了新版本" || res.SessionID == "" {
		t.Fatalf("result = %+v", res)
	}
	sent := r.srv.Requests()[0].LastUserText()
	for _, want := range []string{"Five bullets, newest first.", "整理本周竞品动态", "Output of the job's script:\n3 new posts"} {
		if !strings.Contains(sent, want) {
			t.Errorf("the job's message lacks %q:\n%s", want, sent)
		}
	}
	if got := r.delivered(t, "report"); !strings.Contains(got, "竞品 A") {
		t.Errorf("delivered:\n%s", got)
	}
	if len(res.Deliveries) != 1 || res.Deliveries[0].Target != "local" || !res.Deliveries[0].OK {
		t.Errorf("deliveries = %+v", res.Deliveries)
	}
}

func TestRunJobOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name, status, delivered string
		job                     cron.Job
		reply                   *llmtest.Reply
		wantErr                 string
	}{
		{name: "silent", job: cron.Job{Name: "quiet", Spec: cron.Spec{Prompt: "check"}},
			reply: &llmtest.Reply{Text: "[SILENT] nothing changed"}, status: cron.StatusSilent},
		{name: "no agent", job: cron.Job{Name: "disk", Spec: cron.Spec{Script: "echo 42% used", NoAgent: true}},
			delivered: "42% used"},
		{name: "failing script", job: cron.Job{Name: "broken", Spec: cron.Spec{Script: "echo partial; exit 3", Prompt: "x"}},
			wantErr: "script: exit status 3", delivered: `the scheduled job "broken" failed`},
		{name: "unknown skill", job: cron.Job{Name: "skilled", Spec: cron.Spec{Prompt: "x", Skills: []string{"nope"}}},
			wantErr: `skill "nope"`, delivered: `skill "nope"`},
		{name: "model down", job: cron.Job{Name: "down", Spec: cron.Spec{Prompt: "x"}},
			reply: &llmtest.Reply{Status: 401, Error: &llmtest.ErrorReply{Message: "bad key"}}, wantErr: "bad key", delivered: "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newJobRig(t)
			if tc.reply != nil {
				r.srv.Enqueue(*tc.reply)
			}
			res := r.e.RunJob(context.Background(), tc.job, time.Now())
			if tc.wantErr == "" && res.Err != nil || tc.wantErr != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", res.Err, tc.wantErr)
			}
			if res.Status != tc.status {
				t.Errorf("status = %q, want %q", res.Status, tc.status)
			}
			got := r.delivered(t, tc.job.Name)
			if tc.delivered == "" && got != "" || !strings.Contains(got, tc.delivered) {
				t.Errorf("delivered %q, want %q", got, tc.delivered)
			}
		})
	}
}

// TestRunJobNowRecordsTheRun: a job run by hand (hermes cron run, the
// cronjob tool) is in the job's history like a scheduled one.
func TestRunJobNowRecordsTheRun(t *testing.T) {
	r := newJobRig(t)
	ctx := context.Background()
	if _, err := r.jobs.Create(ctx, cron.Job{Name: "brief", Source: cron.SourceTool, Spec: cron.Spec{Schedule: "@daily", Prompt: "brief me"}}); err != nil {
		t.Fatal(err)
	}
	r.srv.Enqueue(llmtest.Reply{Text: "all quiet"})
	out, err := r.e.RunJobOutput(ctx, "brief")
	if err != nil || out != "all quiet" {
		t.Fatalf("RunJobOutput = %q, %v", out, err)
	}
	runs, err := r.jobs.History(ctx, "brief", 5)
	if err != nil || len(runs) != 1 || runs[0].Status != cron.StatusOK || runs[0].Output != "all quiet" {
		t.Errorf("history = %+v, %v", runs, err)
	}
	if _, err := r.e.RunJobNow(ctx, "nope"); err == nil {
		t.Error("running a job that does not exist worked")
	}
	if got := r.srv.Requests()[0].Messages; got[len(got)-1].Role != llm.RoleUser {
		t.Errorf("the job's turn did not end in its prompt: %+v", got)
	}
}

// TestConfigScriptsExpandLate: a script declared in config.yaml has its
// ${VAR} resolved when the job runs; one made at run time is left to the
// shell, which does not have hermes's variables.
func TestConfigScriptsExpandLate(t *testing.T) {
	srv := llmtest.New(t)
	st, db := openStore(t)
	jobs, err := cron.NewStore(db, cron.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"REPORT_DIR": "/srv/reports"}
	e := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: tool.NewRegistry()},
		Jobs: engine.Jobs{Store: jobs, Notifier: notify.New(notify.Config{Home: t.TempDir()}),
			Expand: func(s string) string { return strings.ReplaceAll(s, "${REPORT_DIR}", vars["REPORT_DIR"]) }}})
	t.Cleanup(e.Close)
	spec := cron.Spec{Script: "echo dir=${REPORT_DIR}", NoAgent: true}
	for _, tc := range []struct {
		source string
		want   string
	}{{cron.SourceConfig, "dir=/srv/reports"}, {cron.SourceTool, "dir="}} {
		res := e.RunJob(context.Background(), cron.Job{Name: "report", Source: tc.source, Spec: spec}, time.Now())
		if res.Err != nil || res.Output != tc.want {
			t.Errorf("a %s job printed %q (%v), want %q", tc.source, res.Output, res.Err, tc.want)
		}
	}
}
