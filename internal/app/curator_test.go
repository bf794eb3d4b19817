package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/skill"
	"github.com/hermes-go/hermes/internal/skill/curator"
)

// curatorHome is a home whose model is srv, with three skills the agent
// wrote 40 days before t0: two near-duplicates and one a job loads.
func curatorHome(t *testing.T, srv *llmtest.Server, t0 time.Time, extra string) string {
	t.Helper()
	home := t.TempDir()
	writeConfig(t, home, `model: {base_url: "`+srv.URL()+`/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
schedules:
  month-end: {cron: "0 9 1 * *", prompt: "report", skills: [monthly-report]}
`+extra)
	dir := filepath.Join(home, "skills")
	lib := skill.Open(skill.Options{Dir: dir})
	old := t0.Add(-40 * 24 * time.Hour)
	for _, name := range []string{"k8s-deploy", "deploy-kubernetes", "monthly-report"} {
		p := filepath.Join(dir, name, skill.FileName)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: About "+name+".\n---\n# "+name+"\n1. Step.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := lib.UpdateUsage(func(r map[string]skill.Usage) error {
		for _, name := range []string{"k8s-deploy", "deploy-kubernetes", "monthly-report"} {
			r[name] = skill.Usage{CreatedBy: skill.OriginAgent, CreatedAt: old}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return home
}

func openCuratorApp(t *testing.T, home string, clk clock.Clock) *App {
	t.Helper()
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	h, err := OpenStores(context.Background(), Options{Config: l, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	if err := h.SyncJobs(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestCurateAsConfigured: a dry run leaves the job's skill alone and
// records nothing; the real run then archives the old skills, keeps the
// job's, and records the run for the schedule.
func TestCurateAsConfigured(t *testing.T) {
	srv := llmtest.New(t)
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	home := curatorHome(t, srv, t0, "")
	clk := clock.NewFake(t0)
	h := openCuratorApp(t, home, clk)

	// The two old skills go to the archive before consolidation, which
	// is left with nothing to merge: the model is not asked.
	rep, err := h.Curate(context.Background(), CurateOptions{DryRun: true, Consolidate: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Archived) != 2 || len(rep.Protected) != 1 || rep.Protected[0].Why != "loaded by job month-end" ||
		!strings.HasPrefix(rep.Consolidation, "not needed") || len(srv.Requests()) != 0 {
		t.Errorf("dry run: %+v", rep)
	}
	if st, _ := curator.ReadState(curator.StatePath(filepath.Join(home, "skills"))); !st.LastRun.IsZero() {
		t.Errorf("a dry run was recorded: %+v", st)
	}
	rep, err = h.Curate(context.Background(), CurateOptions{})
	if err != nil || len(rep.Archived) != 2 {
		t.Fatalf("run: %+v, %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(home, "skills", ".archive", "k8s-deploy", "SKILL.md")); err != nil {
		t.Error(err)
	}
	st, err := curator.ReadState(curator.StatePath(filepath.Join(home, "skills")))
	if err != nil || !st.LastRun.Equal(t0) || !strings.Contains(st.Summary, "2 archived") {
		t.Errorf("state %+v, %v", st, err)
	}
	msg, err := h.RestoreSkill("k8s-deploy")
	if err != nil || msg != "restored k8s-deploy" {
		t.Errorf("restore: %q, %v", msg, err)
	}
}

// TestStartCuratorRunsOnSchedule: serve's curator waits one interval from
// first sight and runs once idle, with the main model merging; it stops
// with the App.
func TestStartCuratorRunsOnSchedule(t *testing.T) {
	srv := llmtest.New(t)
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	home := curatorHome(t, srv, t0.Add(-10*24*time.Hour), "curator: {interval_hours: 24, min_idle_hours: 1, stale_after_days: 30, archive_after_days: 60, consolidate: true}\n")
	merged := "---\nname: kubernetes-deploy\ndescription: Deploy to Kubernetes.\n---\n# kubernetes-deploy\n1. Step.\n"
	answer, _ := json.Marshal(map[string]any{"merges": []any{map[string]any{"sources": []string{"k8s-deploy", "deploy-kubernetes"}, "name": "kubernetes-deploy", "content": merged}}})
	srv.Enqueue(llmtest.Reply{Text: string(answer)})
	clk := clock.NewFake(t0)
	h := openCuratorApp(t, home, clk)
	h.StartCurator(context.Background())
	clk.BlockUntil(1)
	clk.Advance(23 * time.Hour)
	clk.BlockUntil(1)
	if len(srv.Requests()) != 0 {
		t.Fatal("the curator ran before its interval")
	}
	clk.Advance(time.Hour)
	clk.BlockUntil(1)
	lib := skill.Open(skill.Options{Dir: filepath.Join(home, "skills")})
	if _, ok := lib.Get("kubernetes-deploy"); !ok {
		t.Fatalf("no merge after the interval; skills %v", lib.Names())
	}
	st, _ := curator.ReadState(curator.StatePath(lib.Dir()))
	if !strings.Contains(st.Summary, "1 merged") {
		t.Errorf("state %+v", st)
	}
}
