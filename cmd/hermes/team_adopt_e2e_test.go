package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A job's team run whose process is killed while the analyst works is
// taken over by hermes serve once its lease ran out: serve's process
// that fires the jobs finds it, goes on with it in a process of its own
// without running the collector again, and delivers the report along the
// job's chain (not the team's), once.
func TestServeTakesOverAJobsTeamRun(t *testing.T) {
	m := newMarketTeam(t)
	m.killWhileAnalysing(t, "cron", "run", "weekly")
	var st teamStatus
	m.h.hermes("team", "status", "1", "--json").decode(t, &st)
	if st.State != "active" || m.pageHits.Load() != 1 {
		t.Fatalf("after the kill: run %s, page read %d times", st.State, m.pageHits.Load())
	}
	collectorCalls := m.asked("collector")

	started := time.Now()
	_, logs := startServe(t, m.h)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for st.State == "active" {
		select {
		case <-ctx.Done():
			t.Fatalf("serve did not finish the run within 90 s:\n%s", logs.String())
		case <-time.After(200 * time.Millisecond):
		}
		r := m.h.hermes("team", "status", "1", "--json")
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
			t.Fatalf("team status: %v\n%s%s", err, r.stdout, r.stderr)
		}
	}
	t.Logf("serve started, took the run over and finished it in %s", time.Since(started).Round(10*time.Millisecond))
	if st.State != "done" || !strings.HasPrefix(st.Delivery, "local") || len(st.Tasks) != 3 {
		t.Fatalf("the run serve took over: %+v", st)
	}
	for i, want := range []struct {
		role     string
		attempts int
	}{{"collector", 1}, {"analyst", 2}, {"writer", 1}} {
		if tk := st.Tasks[i]; tk.Role != want.role || tk.State != "done" || tk.Attempts != want.attempts {
			t.Errorf("task %d: %+v, want %s done after %d attempts", i+1, tk, want.role, want.attempts)
		}
	}
	if m.pageHits.Load() != 1 || m.asked("collector") != collectorCalls {
		t.Errorf("the collector ran again: page read %d times, collector asked %d times", m.pageHits.Load(), m.asked("collector"))
	}
	local, _ := os.ReadFile(filepath.Join(m.h.dir, "deliveries", "weekly.md"))
	if strings.Count(string(local), "REPORT: widget prices rose all week") != 1 {
		t.Errorf("the job's delivery file does not hold the report once:\n%s", local)
	}
	if m.hooks.Load() != 0 {
		t.Errorf("a job's run went to the team's webhook %d times", m.hooks.Load())
	}
	if !strings.Contains(logs.String(), "taking over a run whose process stopped") {
		t.Errorf("serve's log does not say it took the run over:\n%s", logs.String())
	}
}
