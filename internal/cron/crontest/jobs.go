package crontest

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/cron"
)

// testCRUD: a job is created with defaults and its first fire, rejected
// when invalid, updated, paused, resumed (from now), run and removed;
// config jobs are changed only through Sync.
func testCRUD(t *testing.T, st cron.JobStore, clk *clock.Fake) {
	ctx := ctx(t)
	j, err := st.Create(ctx, cron.Job{Name: "ping", Spec: cron.Spec{Schedule: "every 30m", Prompt: "p", SessionType: cron.SessionContinue}})
	if err != nil {
		t.Fatal(err)
	}
	if !j.Enabled || j.CatchUp != cron.CatchUpOnce || j.Timezone != "" || !j.NextRunAt.Equal(t0.Add(30*time.Minute)) {
		t.Errorf("created = %+v", j)
	}
	if j.Source != cron.SourceTool || !j.CreatedAt.Equal(t0) || !j.UpdatedAt.Equal(t0) {
		t.Errorf("created = %+v, want source tool, created and updated at %v", j, t0)
	}
	if _, err := st.Create(ctx, j); err == nil {
		t.Error("duplicate name accepted")
	}
	for _, bad := range []struct {
		job  cron.Job
		want string
	}{
		{cron.Job{Name: "x", Spec: cron.Spec{Schedule: "@daily"}}, "needs a prompt or a script"},
		{cron.Job{Name: "bad name", Spec: cron.Spec{Schedule: "@daily", Prompt: "p"}}, "name must be"},
		{cron.Job{Name: "x", Spec: cron.Spec{Schedule: "@daily", Prompt: "p", Timezone: "Europe/Atlantis"}}, `"Europe/Atlantis"`},
		{cron.Job{Name: "x", Spec: cron.Spec{Schedule: "@daily", Prompt: "p", CatchUp: "sometimes"}}, `catch_up "sometimes"`},
		{cron.Job{Name: "x", Spec: cron.Spec{Schedule: "@daily", Prompt: "p", Memory: "always"}}, `memory "always": want "extract" or "off"`},
		{cron.Job{Name: "x", Spec: cron.Spec{Schedule: "2026-01-01T09:00", Prompt: "p"}}, "already past"},
	} {
		if _, err := st.Create(ctx, bad.job); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Create(%+v) err = %v, want %q", bad.job, err, bad.want)
		}
	}
	if _, err := st.Get(ctx, "x"); !errors.Is(err, cron.ErrNotFound) {
		t.Errorf("a rejected job was stored: Get = %v", err)
	}
	if j, err = st.Update(ctx, "ping", cron.Spec{Schedule: "every 2h", Prompt: "q", SessionType: cron.SessionContinue}); err != nil || !j.NextRunAt.Equal(t0.Add(2*time.Hour)) || j.Prompt != "q" {
		t.Errorf("Update = %+v, %v", j, err)
	}
	if err := st.Pause(ctx, "ping"); err != nil {
		t.Fatal(err)
	}
	if j = get(t, st, "ping"); j.Enabled || !j.NextRunAt.IsZero() {
		t.Errorf("paused = %+v, want disabled with no next fire", j)
	}
	clk.Advance(5 * time.Hour)
	if err := st.Resume(ctx, "ping"); err != nil {
		t.Fatal(err)
	}
	if j = get(t, st, "ping"); !j.Enabled || !j.NextRunAt.Equal(clk.Now().Add(2*time.Hour)) {
		t.Errorf("resumed = %+v", j)
	}
	id, err := st.StartRun(ctx, "ping", clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, id, cron.RunResult{SessionID: "sess-1", Output: strings.Repeat("x", 5000),
		Err: errors.New("boom"), Deliveries: []cron.Delivery{{Target: "telegram", Error: "rate limited"}}}); err != nil {
		t.Fatal(err)
	}
	runs, _ := st.History(ctx, "ping", 0)
	if len(runs) != 1 || runs[0].Status != cron.StatusError || runs[0].Error != "boom" || len(runs[0].Output) > cron.MaxOutput+4 ||
		runs[0].Deliveries[0].Error != "rate limited" {
		t.Errorf("history = %+v", runs)
	}
	if j = get(t, st, "ping"); j.SessionID != "sess-1" {
		t.Errorf("continue job session = %q, want sess-1", j.SessionID)
	}
	if err := st.Remove(ctx, "ping"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "ping"); !errors.Is(err, cron.ErrNotFound) {
		t.Errorf("Get after Remove: %v", err)
	}
	if runs := history(t, st, "ping"); len(runs) != 1 {
		t.Errorf("after Remove, %d runs in history, want the 1 run kept", len(runs))
	}
	if _, err := st.Sync(ctx, []cron.Job{declared("cfg", "@daily")}); err != nil {
		t.Fatal(err)
	}
	if err := st.Remove(ctx, "cfg"); err == nil || !strings.Contains(err.Error(), "config file") {
		t.Errorf("Remove of a config job: %v", err)
	}
	if _, err := st.Update(ctx, "cfg", cron.Spec{Schedule: "@daily", Prompt: "p"}); err == nil || !strings.Contains(err.Error(), "config file") {
		t.Errorf("Update of a config job: %v", err)
	}
	if jobs, err := st.List(ctx); err != nil || len(jobs) != 1 || jobs[0].Name != "cfg" {
		t.Errorf("List = %+v, %v; want cfg alone", jobs, err)
	}
}

// testSync: config jobs are added, replaced when changed, left alone when
// not (keeping pause state and next fire), removed when gone; tool jobs
// are never touched.
func testSync(t *testing.T, st cron.JobStore, clk *clock.Fake) {
	ctx := ctx(t)
	create(t, st, "mine", "every 1h")

	res, err := st.Sync(ctx, []cron.Job{declared("news", "0 9 * * MON"), declared("digest", "@daily")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 2 || len(res.Updated)+len(res.Removed) != 0 {
		t.Errorf("first sync = %+v", res)
	}
	if err := st.Pause(ctx, "digest"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	res, err = st.Sync(ctx, []cron.Job{declared("news", "0 10 * * MON"), declared("digest", "@daily")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Updated) != 1 || res.Updated[0] != "news" || len(res.Added)+len(res.Removed) != 0 {
		t.Errorf("second sync = %+v", res)
	}
	if d, _ := st.Get(ctx, "digest"); d.Enabled {
		t.Error("an unchanged declaration resumed a paused job")
	}
	if n, _ := st.Get(ctx, "news"); n.NextRunAt.UTC().Hour() != 10 || n.Source != cron.SourceConfig || n.Deliver[0] != "telegram" {
		t.Errorf("news after change = %+v", n)
	}
	res, err = st.Sync(ctx, []cron.Job{declared("news", "0 10 * * MON")})
	if err != nil || len(res.Removed) != 1 || res.Removed[0] != "digest" {
		t.Errorf("third sync = %+v, %v", res, err)
	}
	jobs, _ := st.List(ctx)
	if len(jobs) != 2 || jobs[0].Name != "mine" || jobs[1].Name != "news" {
		t.Errorf("jobs = %+v, want mine and news", jobs)
	}
	_, err = st.Sync(ctx, []cron.Job{declared("news", "0 10 * * MON"), declared("mine", "@daily"), declared("weekly-news", "0 9 * * MONDAY")})
	if err == nil || !strings.Contains(err.Error(), `job "mine": a job of that name was created at run time`) ||
		!strings.Contains(err.Error(), `job "weekly-news": cron "0 9 * * MONDAY" is not a schedule`) ||
		!strings.Contains(err.Error(), `"0 9 * * MON"`) {
		t.Errorf("bad declarations: err = %v", err)
	}
	if m, _ := st.Get(ctx, "mine"); m.Source != cron.SourceTool || m.Schedule != "every 1h" {
		t.Errorf("tool job touched: %+v", m)
	}
	// A declared job may be disabled; a one-shot already past is kept
	// visible, disabled.
	off := declared("off", "@daily")
	off.Enabled = false
	if _, err := st.Sync(ctx, []cron.Job{declared("news", "0 10 * * MON"), off, declared("gone", "2026-01-01T09:00")}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"off", "gone"} {
		if j := get(t, st, name); j.Enabled || !j.NextRunAt.IsZero() || j.Source != cron.SourceConfig {
			t.Errorf("%s = %+v, want a disabled config job with no next fire", name, j)
		}
	}
}

// testNotFound: every method naming a job that does not exist says so
// with ErrNotFound.
func testNotFound(t *testing.T, st cron.JobStore, _ *clock.Fake) {
	ctx := ctx(t)
	checks := map[string]error{}
	_, checks["Get"] = st.Get(ctx, "nope")
	_, checks["Update"] = st.Update(ctx, "nope", cron.Spec{Schedule: "@daily", Prompt: "p"})
	checks["Pause"] = st.Pause(ctx, "nope")
	checks["Resume"] = st.Resume(ctx, "nope")
	checks["Remove"] = st.Remove(ctx, "nope")
	for name, err := range checks {
		if !errors.Is(err, cron.ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("%s of an unknown job: %v, want ErrNotFound naming it", name, err)
		}
	}
	if jobs, err := st.List(ctx); err != nil || len(jobs) != 0 {
		t.Errorf("List of an empty store = %+v, %v", jobs, err)
	}
	if runs, err := st.History(ctx, "nope", 0); err != nil || len(runs) != 0 {
		t.Errorf("History of an unknown job = %+v, %v; want none", runs, err)
	}
}

// testOnChange: listeners hear every change to the jobs, so a scheduler
// in the process wakes at once; failed changes are not announced.
func testOnChange(t *testing.T, st cron.JobStore, _ *clock.Fake) {
	ctx := ctx(t)
	var heard atomic.Int64
	st.OnChange(func() { heard.Add(1) })
	expect := func(what string, n int64) {
		t.Helper()
		if got := heard.Swap(0); got != n {
			t.Errorf("%s: listeners called %d times, want %d", what, got, n)
		}
	}
	create(t, st, "a", "@daily")
	expect("Create", 1)
	if _, err := st.Update(ctx, "a", cron.Spec{Schedule: "@hourly", Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	expect("Update", 1)
	st.Pause(ctx, "a")
	expect("Pause", 1)
	st.Resume(ctx, "a")
	expect("Resume", 1)
	st.Sync(ctx, []cron.Job{declared("cfg", "@daily")})
	expect("Sync", 1)
	st.Remove(ctx, "a")
	expect("Remove", 1)
	st.Pause(ctx, "a")
	expect("Pause of a removed job", 0)
}
