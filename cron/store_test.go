package cron

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/sqlitedb"
)

func declared(name, schedule string) Job {
	return Job{Name: name, Enabled: true, Spec: Spec{Schedule: schedule, Prompt: "p", Deliver: []string{"telegram"}}}
}

// TestSync: config jobs are added, replaced when changed, left alone when
// not (keeping pause state and next fire), removed when gone; tool jobs
// are never touched.
func TestSync(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock(t0)
	st := openStore(t, dbPath(t), clock)
	createJob(t, st, "mine", "every 1h", "")

	res, err := st.Sync(ctx, []Job{declared("news", "0 9 * * MON"), declared("digest", "@daily")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 2 || len(res.Updated)+len(res.Removed) != 0 {
		t.Errorf("first sync = %+v", res)
	}
	if err := st.Pause(ctx, "digest"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	res, err = st.Sync(ctx, []Job{declared("news", "0 10 * * MON"), declared("digest", "@daily")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Updated) != 1 || res.Updated[0] != "news" || len(res.Added)+len(res.Removed) != 0 {
		t.Errorf("second sync = %+v", res)
	}
	if d, _ := st.Get(ctx, "digest"); d.Enabled {
		t.Error("an unchanged declaration resumed a paused job")
	}
	if n, _ := st.Get(ctx, "news"); n.NextRunAt.UTC().Hour() != 10 || n.Source != SourceConfig || n.Deliver[0] != "telegram" {
		t.Errorf("news after change = %+v", n)
	}
	res, err = st.Sync(ctx, []Job{declared("news", "0 10 * * MON")})
	if err != nil || len(res.Removed) != 1 || res.Removed[0] != "digest" {
		t.Errorf("third sync = %+v, %v", res, err)
	}
	jobs, _ := st.List(ctx)
	if len(jobs) != 2 || jobs[0].Name != "mine" || jobs[1].Name != "news" {
		t.Errorf("jobs = %+v, want mine and news", jobs)
	}
	_, err = st.Sync(ctx, []Job{declared("news", "0 10 * * MON"), declared("mine", "@daily"), declared("weekly-news", "0 9 * * MONDAY")})
	if err == nil || !strings.Contains(err.Error(), `job "mine": a job of that name was created at run time`) ||
		!strings.Contains(err.Error(), `job "weekly-news": cron "0 9 * * MONDAY" is not a schedule`) ||
		!strings.Contains(err.Error(), `"0 9 * * MON"`) {
		t.Errorf("bad declarations: err = %v", err)
	}
	if m, _ := st.Get(ctx, "mine"); m.Source != SourceTool || m.Schedule != "every 1h" {
		t.Errorf("tool job touched: %+v", m)
	}
}

func TestStoreCRUD(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock(t0)
	st := openStore(t, dbPath(t), clock)
	j, err := st.Create(ctx, Job{Name: "ping", Spec: Spec{Schedule: "every 30m", Prompt: "p", SessionType: SessionContinue}})
	if err != nil {
		t.Fatal(err)
	}
	if !j.Enabled || j.CatchUp != CatchUpOnce || j.Timezone != "" || !j.NextRunAt.Equal(t0.Add(30*time.Minute)) {
		t.Errorf("created = %+v", j)
	}
	if _, err := st.Create(ctx, j); err == nil {
		t.Error("duplicate name accepted")
	}
	for _, bad := range []struct {
		job  Job
		want string
	}{
		{Job{Name: "x", Spec: Spec{Schedule: "@daily"}}, "needs a prompt or a script"},
		{Job{Name: "bad name", Spec: Spec{Schedule: "@daily", Prompt: "p"}}, "name must be"},
		{Job{Name: "x", Spec: Spec{Schedule: "@daily", Prompt: "p", Timezone: "Europe/Atlantis"}}, `"Europe/Atlantis"`},
		{Job{Name: "x", Spec: Spec{Schedule: "@daily", Prompt: "p", CatchUp: "sometimes"}}, `catch_up "sometimes"`},
		{Job{Name: "x", Spec: Spec{Schedule: "2026-01-01T09:00", Prompt: "p"}}, "already past"},
	} {
		if _, err := st.Create(ctx, bad.job); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Create(%+v) err = %v, want %q", bad.job, err, bad.want)
		}
	}
	if j, err = st.Update(ctx, "ping", Spec{Schedule: "every 2h", Prompt: "q", SessionType: SessionContinue}); err != nil || !j.NextRunAt.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("Update = %+v, %v", j, err)
	}
	if err := st.Pause(ctx, "ping"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Hour)
	if err := st.Resume(ctx, "ping"); err != nil {
		t.Fatal(err)
	}
	if j, _ = st.Get(ctx, "ping"); !j.Enabled || !j.NextRunAt.Equal(clock.Now().Add(2*time.Hour)) {
		t.Errorf("resumed = %+v", j)
	}
	id, err := st.StartRun(ctx, "ping", clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, id, RunResult{SessionID: "sess-1", Output: strings.Repeat("x", 5000),
		Err: errors.New("boom"), Deliveries: []Delivery{{Target: "telegram", Error: "rate limited"}}}); err != nil {
		t.Fatal(err)
	}
	runs, _ := st.History(ctx, "ping", 0)
	if len(runs) != 1 || runs[0].Status != StatusError || runs[0].Error != "boom" || len(runs[0].Output) > MaxOutput+4 ||
		runs[0].Deliveries[0].Error != "rate limited" {
		t.Errorf("history = %+v", runs)
	}
	if j, _ = st.Get(ctx, "ping"); j.SessionID != "sess-1" {
		t.Errorf("continue job session = %q, want sess-1", j.SessionID)
	}
	if err := st.Remove(ctx, "ping"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "ping"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Remove: %v", err)
	}
	if _, err := st.Sync(ctx, []Job{declared("cfg", "@daily")}); err != nil {
		t.Fatal(err)
	}
	if err := st.Remove(ctx, "cfg"); err == nil || !strings.Contains(err.Error(), "config file") {
		t.Errorf("Remove of a config job: %v", err)
	}
	if _, err := st.Update(ctx, "cfg", Spec{Schedule: "@daily", Prompt: "p"}); err == nil || !strings.Contains(err.Error(), "config file") {
		t.Errorf("Update of a config job: %v", err)
	}
}

// TestReopen: jobs survive closing the file and opening it again.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := dbPath(t)
	clock := newFakeClock(t0)
	db, err := sqlitedb.Open(ctx, path, sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewStore(db, StoreOptions{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	createJob(t, st, "a", "@daily", "")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st2 := openStore(t, path, clock)
	if jobs, err := st2.List(ctx); err != nil || len(jobs) != 1 || !jobs[0].NextRunAt.Equal(t0.Add(15*time.Hour+30*time.Minute)) {
		t.Errorf("after reopen: %+v %v", jobs, err)
	}
}

// TestDefaultZone: jobs that name no zone fire in the store's default
// zone, and a zone that does not exist is refused when the store is made.
func TestDefaultZone(t *testing.T) {
	db, err := sqlitedb.Open(context.Background(), dbPath(t), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := NewStore(db, StoreOptions{DefaultZone: "Europe/Atlantis"}); err == nil || !strings.Contains(err.Error(), "Europe/Atlantis") {
		t.Errorf("NewStore with an unknown default zone: %v", err)
	}
	clock := newFakeClock(t0)
	st, err := NewStore(db, StoreOptions{Now: clock.Now, DefaultZone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	j := createJob(t, st, "morning", "0 9 * * *", "")
	// 08:30 UTC is 16:30 in Shanghai: the next 09:00 there is 01:00 UTC.
	if j.Timezone != "Asia/Shanghai" || !j.NextRunAt.Equal(time.Date(2026, 12, 3, 1, 0, 0, 0, time.UTC)) {
		t.Errorf("job = zone %q, next %v; want Asia/Shanghai, 2026-12-03 01:00 UTC", j.Timezone, j.NextRunAt)
	}
}
