package crontest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/cron"
)

// testRuns: a run started by hand marks its job running and shows in
// history as running; finishing it records the result, kept to
// MaxOutput, and clears the mark. Only a "continue" job keeps the
// session of its last run.
func testRuns(t *testing.T, st cron.JobStore, clk *clock.Fake) {
	ctx := ctx(t)
	create(t, st, "fresh", "@daily")
	if _, err := st.Create(ctx, cron.Job{Name: "thread", Spec: cron.Spec{Schedule: "@daily", Prompt: "p", SessionType: cron.SessionContinue}}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	started := clk.Now()
	scheduled := t0.Add(-time.Hour)
	id, err := st.StartRun(ctx, "fresh", scheduled)
	if err != nil {
		t.Fatal(err)
	}
	if j := get(t, st, "fresh"); !j.RunningSince.Equal(started) || !j.LastRunAt.Equal(started) {
		t.Errorf("job after StartRun: running since %v, last run %v; want both %v", j.RunningSince, j.LastRunAt, started)
	}
	runs := history(t, st, "fresh")
	if len(runs) != 1 || runs[0].ID != id || runs[0].Job != "fresh" || runs[0].Status != cron.StatusRunning ||
		!runs[0].ScheduledFor.Equal(scheduled) || !runs[0].StartedAt.Equal(started) || !runs[0].EndedAt.IsZero() {
		t.Errorf("history while running = %+v", runs)
	}

	clk.Advance(time.Minute)
	long := strings.Repeat("a", cron.MaxOutput) + "cut off"
	if err := st.FinishRun(ctx, id, cron.RunResult{SessionID: "s-1", Output: long}); err != nil {
		t.Fatal(err)
	}
	runs = history(t, st, "fresh")
	if len(runs) != 1 || runs[0].Status != cron.StatusOK || runs[0].SessionID != "s-1" || !runs[0].EndedAt.Equal(clk.Now()) ||
		runs[0].Error != "" || len(runs[0].Deliveries) != 0 {
		t.Errorf("history after FinishRun = %+v", runs)
	}
	if out := runs[0].Output; out != long[:cron.MaxOutput]+"…" {
		t.Errorf("output kept: %d bytes ending %q; want the first MaxOutput bytes and …", len(out), out[max(0, len(out)-10):])
	}
	if j := get(t, st, "fresh"); !j.RunningSince.IsZero() || j.SessionID != "" {
		t.Errorf("job after FinishRun: running since %v, session %q; want neither", j.RunningSince, j.SessionID)
	}

	for _, tc := range []struct {
		res        cron.RunResult
		status     string
		errText    string
		deliveries []cron.Delivery
	}{
		{cron.RunResult{SessionID: "s-2", Err: errors.New("model down")}, cron.StatusError, "model down", nil},
		{cron.RunResult{SessionID: "s-3", Status: cron.StatusSilent, Output: "[SILENT]"}, cron.StatusSilent, "", nil},
		{cron.RunResult{SessionID: "s-4", Output: "report", Deliveries: []cron.Delivery{
			{Target: "wecom:k", Error: "HTTP 500"}, {Target: "email:a@example.com", OK: true}}},
			cron.StatusOK, "", []cron.Delivery{{Target: "wecom:k", Error: "HTTP 500"}, {Target: "email:a@example.com", OK: true}}},
	} {
		id, err := st.StartRun(ctx, "thread", clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.FinishRun(ctx, id, tc.res); err != nil {
			t.Fatal(err)
		}
		r := history(t, st, "thread")[0]
		if r.ID != id || r.Status != tc.status || r.Error != tc.errText || r.SessionID != tc.res.SessionID || r.Output != tc.res.Output ||
			len(r.Deliveries) != len(tc.deliveries) {
			t.Errorf("run of %+v = %+v", tc.res, r)
			continue
		}
		for i, d := range tc.deliveries {
			if r.Deliveries[i] != d {
				t.Errorf("delivery %d = %+v, want %+v", i, r.Deliveries[i], d)
			}
		}
		if j := get(t, st, "thread"); j.SessionID != tc.res.SessionID {
			t.Errorf("continue job session = %q, want %q", j.SessionID, tc.res.SessionID)
		}
	}
}

// testHistory: runs come newest first, per job, up to the limit (20 when
// none is given).
func testHistory(t *testing.T, st cron.JobStore, clk *clock.Fake) {
	ctx := ctx(t)
	create(t, st, "a", "@hourly")
	create(t, st, "b", "@hourly")
	var ids []int64
	for i := range 25 {
		clk.Advance(time.Minute)
		id, err := st.StartRun(ctx, "a", t0.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if err := st.FinishRun(ctx, id, cron.RunResult{Output: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.StartRun(ctx, "b", t0); err != nil {
		t.Fatal(err)
	}
	runs, err := st.History(ctx, "a", 0)
	if err != nil || len(runs) != 20 {
		t.Fatalf("History(a, 0) = %d runs, %v; want 20", len(runs), err)
	}
	for i, r := range runs {
		if want := ids[len(ids)-1-i]; r.ID != want || r.Job != "a" {
			t.Errorf("run %d = id %d of %s, want id %d of a (newest first)", i, r.ID, r.Job, want)
		}
	}
	if runs, _ := st.History(ctx, "a", 3); len(runs) != 3 || runs[0].ID != ids[24] {
		t.Errorf("History(a, 3) = %+v", runs)
	}
	if runs := history(t, st, "b"); len(runs) != 1 || runs[0].Status != cron.StatusRunning {
		t.Errorf("History(b) = %+v, want its one running run", runs)
	}
}

// testUnsafeText: a run's output, error and session may hold NUL bytes
// and invalid UTF-8 (a script's binary output, a model's stray bytes, a
// cut through a character), which PostgreSQL's text refuses; the run is
// still recorded, each bad byte as U+FFFD. A NUL in a job's prompt
// survives the round trip and does not stop a "continue" job keeping
// its session.
func testUnsafeText(t *testing.T, st cron.JobStore, _ *clock.Fake) {
	ctx := ctx(t)
	if _, err := st.Create(ctx, cron.Job{Name: "thread", Spec: cron.Spec{Schedule: "@daily", Prompt: "p\x00q", SessionType: cron.SessionContinue}}); err != nil {
		t.Fatal(err)
	}
	if j := get(t, st, "thread"); j.Prompt != "p\x00q" {
		t.Errorf("prompt = %q, want %q", j.Prompt, "p\x00q")
	}
	bad := "a\x00b\xffc\xc3"
	const want = "a\uFFFDb\uFFFDc\uFFFD"
	id, err := st.StartRun(ctx, "thread", t0)
	if err != nil {
		t.Fatal(err)
	}
	res := cron.RunResult{SessionID: "s" + bad, Output: "out" + bad, Err: errors.New("err" + bad),
		Deliveries: []cron.Delivery{{Target: "webhook:x", Error: "HTTP 500: " + bad}}}
	if err := st.FinishRun(ctx, id, res); err != nil {
		t.Fatalf("FinishRun: %v", err)
	}
	r := history(t, st, "thread")[0]
	if r.SessionID != "s"+want || r.Output != "out"+want || r.Error != "err"+want || r.Status != cron.StatusError ||
		len(r.Deliveries) != 1 || r.Deliveries[0].Error != "HTTP 500: "+want {
		t.Errorf("run = %+v, want each bad byte as U+FFFD", r)
	}
	if j := get(t, st, "thread"); j.SessionID != "s"+want || !j.RunningSince.IsZero() {
		t.Errorf("continue job after its run: session %q, running since %v; want %q, not running", j.SessionID, j.RunningSince, "s"+want)
	}

	// Output kept to MaxOutput is cut between characters, not inside one.
	id, err = st.StartRun(ctx, "thread", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a", cron.MaxOutput-1) + "中文"
	if err := st.FinishRun(ctx, id, cron.RunResult{Output: long}); err != nil {
		t.Fatalf("FinishRun: %v", err)
	}
	if out := history(t, st, "thread")[0].Output; out != long[:cron.MaxOutput-1]+"…" {
		t.Errorf("cut output ends %q, want the a's and …", out[max(0, len(out)-10):])
	}
}
