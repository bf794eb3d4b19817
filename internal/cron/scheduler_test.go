package cron

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// TestFiresOnTime: an hourly job fires at each hour and its history says
// ok with the runner's output and session.
func TestFiresOnTime(t *testing.T) { dbtest.EachTarget(t, testFiresOnTime) }

func testFiresOnTime(t *testing.T, x dbtest.Target) {
	clk, r := clock.NewFake(t0), &recorder{}
	n := startNode(t, x, clk, "a", r)
	createJob(t, n.store, "hourly", "0 * * * *", "")
	if d := n.waitIdle(); d != 10*time.Second {
		t.Errorf("sleep = %v, want the 10s lease renewal (fire is 30m away)", d)
	}
	for range 18 { // 3 hours in 10-minute steps
		n.advance(10*time.Minute, false)
	}
	want := []time.Time{t0.Add(30 * time.Minute), t0.Add(90 * time.Minute), t0.Add(150 * time.Minute)}
	if got := r.fires("hourly"); !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Fatalf("fires = %v, want %v", got, want)
	}
	runs, err := n.store.History(context.Background(), "hourly", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].Status != StatusOK || runs[0].Output != "done hourly" || runs[0].EndedAt.IsZero() {
		t.Errorf("history = %+v", runs)
	}
	j, _ := n.store.Get(context.Background(), "hourly")
	if !j.NextRunAt.Equal(t0.Add(210*time.Minute)) || !j.RunningSince.IsZero() {
		t.Errorf("job after runs: next %v running %v", j.NextRunAt, j.RunningSince)
	}
}

// TestEverySecond runs an "@every 1s" job for five and a half seconds:
// it fires at each second and every run is ok. (BenchmarkRealClock
// measures the same job on the real clock.)
func TestEverySecond(t *testing.T) { dbtest.EachTarget(t, testEverySecond) }

func testEverySecond(t *testing.T, x dbtest.Target) {
	clk, r := clock.NewFake(t0), &recorder{}
	n := startNode(t, x, clk, "a", r)
	createJob(t, n.store, "tick", "@every 1s", "")
	n.waitIdle()
	for range 11 {
		n.advance(500*time.Millisecond, false)
	}
	var want []time.Time
	for i := 1; i <= 5; i++ {
		want = append(want, t0.Add(time.Duration(i)*time.Second))
	}
	if got := r.fires("tick"); !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Fatalf("fires = %v, want %v", got, want)
	}
	runs, err := n.store.History(context.Background(), "tick", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != len(want) {
		t.Errorf("history has %d runs, want %d", len(runs), len(want))
	}
	for _, run := range runs {
		if run.Status != StatusOK {
			t.Errorf("run %+v not ok", run)
		}
	}
}

// TestRestartCatchUp stops the scheduler before fires and starts a new
// one later: what runs depends on catch_up and how late it is.
func TestRestartCatchUp(t *testing.T) { eachBackend(t, testRestartCatchUp) }

func testRestartCatchUp(t *testing.T, backend string) {
	tests := []struct {
		name      string
		catchUp   string
		downFor   time.Duration // from t0 (08:30); the job fires hourly at :00
		want      []time.Duration
		wantMiss  int
		nextAfter time.Duration // next fire, from t0
	}{
		{"one missed fire", "", 40 * time.Minute, []time.Duration{30 * time.Minute}, 0, 90 * time.Minute},
		{"3h outage once", CatchUpOnce, 2*time.Hour + 40*time.Minute, []time.Duration{150 * time.Minute}, 1, 210 * time.Minute},
		{"3h outage all", CatchUpAll, 2*time.Hour + 40*time.Minute, []time.Duration{30 * time.Minute, 90 * time.Minute, 150 * time.Minute}, 0, 210 * time.Minute},
		{"3h outage skip", CatchUpSkip, 2*time.Hour + 40*time.Minute, nil, 1, 210 * time.Minute},
		{"beyond grace", CatchUpOnce, 3*time.Hour + 15*time.Minute, nil, 1, 210 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, clk, r := dbtest.New(t, backend), clock.NewFake(t0), &recorder{}
			a := startNode(t, x, clk, "a", r)
			createJob(t, a.store, "hourly", "0 * * * *", tc.catchUp)
			a.waitIdle()
			a.stop()
			clk.Advance(tc.downFor)
			b := startNode(t, x, clk, "b", r)
			b.waitRuns()
			var want []time.Time
			for _, d := range tc.want {
				want = append(want, t0.Add(d))
			}
			if got := r.fires("hourly"); !slices.EqualFunc(got, want, time.Time.Equal) {
				t.Errorf("fires = %v, want %v", got, want)
			}
			st := statuses(t, b.store, "hourly")
			if st[StatusMissed] != tc.wantMiss || st[StatusOK] != len(tc.want) {
				t.Errorf("history = %v, want %d ok and %d missed", st, len(tc.want), tc.wantMiss)
			}
			j, _ := b.store.Get(context.Background(), "hourly")
			if !j.NextRunAt.Equal(t0.Add(tc.nextAfter)) {
				t.Errorf("next = %v, want %v", j.NextRunAt, t0.Add(tc.nextAfter))
			}
		})
	}
}

// TestTwoSchedulers runs two schedulers, each with its own store handle
// and clock, on one state.db: every fire runs exactly once.
func TestTwoSchedulers(t *testing.T) { dbtest.EachTarget(t, testTwoSchedulers) }

func testTwoSchedulers(t *testing.T, x dbtest.Target) {
	r := &recorder{}
	ca, cb := clock.NewFake(t0), clock.NewFake(t0)
	a := startNode(t, x, ca, "a", r)
	b := startNode(t, x, cb, "b", r)
	createJob(t, a.store, "hourly", "0 * * * *", "")
	a.waitIdle()
	b.sched.Wake() // b learns of jobs by its renewal; wake it to make the race likelier
	b.waitIdle()
	steps := []time.Duration{10 * time.Second, 5 * time.Minute, 10 * time.Minute, 50 * time.Second}
	for i := 0; ca.Now().Before(t0.Add(5 * time.Hour)); i++ {
		d := steps[i%len(steps)]
		fa, fb := ca.Advance(d), cb.Advance(d)
		if fa > 0 {
			a.waitIdle()
		}
		if fb > 0 {
			b.waitIdle()
		}
		a.waitRuns()
		b.waitRuns()
	}
	got := r.fires("hourly")
	if len(got) != 5 {
		t.Fatalf("fires = %v, want 5 (one per hour)", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Sub(got[i-1]) != time.Hour {
			t.Errorf("fires = %v: not one per hour", got)
		}
	}
	if st := statuses(t, a.store, "hourly"); st[StatusOK] != 5 || len(st) != 1 {
		t.Errorf("history = %v", st)
	}
}

// TestNotStartedTwice: a run still going at the next fire is not joined
// by a second; the fire is recorded skipped.
func TestNotStartedTwice(t *testing.T) { dbtest.EachTarget(t, testNotStartedTwice) }

func testNotStartedTwice(t *testing.T, x dbtest.Target) {
	gate := make(chan struct{})
	clk, r := clock.NewFake(t0), &recorder{gate: map[string]chan struct{}{"slow": gate}}
	n := startNode(t, x, clk, "a", r)
	createJob(t, n.store, "slow", "every 1m", "")
	n.waitIdle()
	n.advance(time.Minute, true)
	n.advance(time.Minute, true)
	n.advance(time.Minute, true)
	close(gate)
	n.waitRuns()
	if got := r.fires("slow"); len(got) != 1 {
		t.Errorf("runner calls = %v, want 1", got)
	}
	if st := statuses(t, n.store, "slow"); st[StatusOK] != 1 || st[StatusSkipped] != 2 {
		t.Errorf("history = %v, want 1 ok and 2 skipped", st)
	}
	n.advance(time.Minute, false)
	if got := r.fires("slow"); len(got) != 2 {
		t.Errorf("after the slow run ended, calls = %v, want 2", got)
	}
}

// TestOneShotMissed: a one-shot whose time passed while hermes was down
// is recorded missed and disabled, never silently dropped.
func TestOneShotMissed(t *testing.T) { dbtest.EachTarget(t, testOneShotMissed) }

func testOneShotMissed(t *testing.T, x dbtest.Target) {
	clk, r := clock.NewFake(t0), &recorder{}
	a := startNode(t, x, clk, "a", r)
	j := createJob(t, a.store, "reminder", "+30m", "")
	a.waitIdle()
	if j.Schedule != "2026-12-02T09:00:00Z" {
		t.Errorf("relative one-shot stored as %q, want the absolute time", j.Schedule)
	}
	a.stop()
	clk.Advance(2 * time.Hour)
	b := startNode(t, x, clk, "b", r)
	b.waitRuns()
	if got := r.fires("reminder"); len(got) != 0 {
		t.Errorf("ran %v", got)
	}
	runs, _ := b.store.History(context.Background(), "reminder", 10)
	if len(runs) != 1 || runs[0].Status != StatusMissed || !runs[0].ScheduledFor.Equal(t0.Add(30*time.Minute)) || runs[0].Error == "" {
		t.Errorf("history = %+v, want one missed run for 09:00 with a reason", runs)
	}
	j, _ = b.store.Get(context.Background(), "reminder")
	if j.Enabled || !j.NextRunAt.IsZero() {
		t.Errorf("job after missing: enabled %v next %v", j.Enabled, j.NextRunAt)
	}
}

// TestOneShotRuns: an on-time one-shot runs once and is disabled.
func TestOneShotRuns(t *testing.T) { dbtest.EachTarget(t, testOneShotRuns) }

func testOneShotRuns(t *testing.T, x dbtest.Target) {
	clk, r := clock.NewFake(t0), &recorder{}
	n := startNode(t, x, clk, "a", r)
	createJob(t, n.store, "reminder", "in 15s", "")
	n.waitIdle()
	n.advance(15*time.Second, false)
	n.advance(time.Hour, false)
	if got := r.fires("reminder"); len(got) != 1 || !got[0].Equal(t0.Add(15*time.Second)) {
		t.Errorf("fires = %v", got)
	}
	if j, _ := n.store.Get(context.Background(), "reminder"); j.Enabled {
		t.Error("spent one-shot still enabled")
	}
}

// TestWakeAfterCreate: a job created while the loop sleeps toward a
// later wake-up fires at its own time.
func TestWakeAfterCreate(t *testing.T) { dbtest.EachTarget(t, testWakeAfterCreate) }

func testWakeAfterCreate(t *testing.T, x dbtest.Target) {
	clk, r := clock.NewFake(t0), &recorder{}
	n := startNode(t, x, clk, "a", r)
	createJob(t, n.store, "daily", "@daily", "")
	n.waitIdle()
	n.advance(time.Second, false) // the loop now sleeps toward its 10s renewal
	createJob(t, n.store, "soon", "+3s", "")
	if d := n.waitIdle(); d != 3*time.Second {
		t.Errorf("after Create the loop sleeps %v, want 3s", d)
	}
	n.advance(3*time.Second, false)
	if got := r.fires("soon"); len(got) != 1 {
		t.Errorf("soon fired %v times at +3s, want once", got)
	}
}

// TestCrashedHolder: a holder that stopped without releasing leaves a
// lease that expires, and a run left "running" is closed as interrupted.
func TestCrashedHolder(t *testing.T) { dbtest.EachTarget(t, testCrashedHolder) }

func testCrashedHolder(t *testing.T, x dbtest.Target) {
	clk, r := clock.NewFake(t0), &recorder{}
	st := openStore(t, x, clk)
	ctx := context.Background()
	createJob(t, st, "hourly", "0 * * * *", "")
	if _, err := st.AcquireLease(ctx, "ghost", clk.Now(), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := st.StartRun(ctx, "hourly", t0); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, x, clk, "b", r)
	if n.sched.held {
		t.Fatal("took a live lease")
	}
	n.advance(10*time.Second, false)
	n.advance(10*time.Second, false)
	n.advance(10*time.Second, false) // the ghost's lease has expired
	if !n.sched.held {
		t.Fatal("did not take the expired lease")
	}
	runs, _ := st.History(ctx, "hourly", 10)
	if len(runs) != 1 || runs[0].Status != StatusError || runs[0].Error == "" {
		t.Errorf("ghost's run = %+v, want closed as interrupted", runs)
	}
	for range 4 {
		n.advance(10*time.Minute, false)
	}
	if got := r.fires("hourly"); len(got) != 1 {
		t.Errorf("fires = %v, want the 09:00 fire", got)
	}
}

// TestGoneHolder: a scheduler restarted after a crash on the same host
// takes the dead process's lease at once, not a TTL later, and closes
// its run; a live holder's lease is not taken.
func TestGoneHolder(t *testing.T) { dbtest.EachTarget(t, testGoneHolder) }

func testGoneHolder(t *testing.T, x dbtest.Target) {
	clk, r := clock.NewFake(t0), &recorder{}
	st := openStore(t, x, clk)
	ctx := context.Background()
	createJob(t, st, "hourly", "0 * * * *", "")
	if _, err := st.AcquireLease(ctx, "host/41", clk.Now(), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := st.StartRun(ctx, "hourly", t0); err != nil {
		t.Fatal(err)
	}
	live := startNode(t, x, clk, "host/43", r, func(o *Options) { o.Gone = func(string) bool { return false } })
	if live.sched.Leading() {
		t.Fatal("took the lease of a holder not known to be gone")
	}
	live.stop()
	n := startNode(t, x, clk, "host/42", r, func(o *Options) { o.Gone = func(h string) bool { return h == "host/41" } })
	if !n.sched.Leading() {
		t.Fatal("did not take the lease of a holder that is gone")
	}
	runs, _ := st.History(ctx, "hourly", 10)
	if len(runs) != 1 || runs[0].Status != StatusError {
		t.Errorf("the dead holder's run = %+v, want closed as interrupted", runs)
	}
	if _, err := st.TakeLease(ctx, "host/44", "", clk.Now(), 30*time.Second); err == nil {
		t.Error("TakeLease from no one was accepted")
	}
	if l, err := st.TakeLease(ctx, "host/44", "host/41", clk.Now(), 30*time.Second); err != nil || l.Held || l.Holder != "host/42" {
		t.Errorf("taking the lease from a holder that no longer has it = %+v, %v; want it left with host/42", l, err)
	}
}

func TestUpcoming(t *testing.T) { dbtest.EachTarget(t, testUpcoming) }

func testUpcoming(t *testing.T, x dbtest.Target) {
	clk, r := clock.NewFake(t0), &recorder{}
	n := startNode(t, x, clk, "a", r)
	ctx := context.Background()
	if _, err := n.store.Create(ctx, Job{Name: "news", Spec: Spec{Schedule: "0 9 * * MON", Timezone: "Asia/Shanghai", Prompt: "p"}}); err != nil {
		t.Fatal(err)
	}
	n.waitIdle()
	createJob(t, n.store, "hourly", "0 * * * *", "")
	n.waitIdle()
	up, err := n.sched.Upcoming(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(up) != 2 || up[0].Job != "hourly" || up[1].Job != "news" || up[1].Zone != "Asia/Shanghai" ||
		up[1].At.Hour() != 9 || up[1].At.Weekday() != time.Monday {
		t.Errorf("Upcoming = %+v", up)
	}
}

// TestShutdownGrace: when the scheduler stops, a run in progress goes on
// for the grace and is cancelled only once it has passed.
func TestShutdownGrace(t *testing.T) { eachBackend(t, testShutdownGrace) }

func testShutdownGrace(t *testing.T, backend string) {
	const grace = 5 * time.Minute
	for _, tc := range []struct {
		name   string
		finish bool // the run ends by itself within the grace
		want   string
	}{
		{"run ends within the grace", true, StatusOK},
		{"grace runs out", false, StatusError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate := make(chan struct{})
			x, clk := dbtest.New(t, backend), clock.NewFake(t0)
			r := &recorder{gate: map[string]chan struct{}{"slow": gate}, started: make(chan string, 1)}
			n := startNode(t, x, clk, "a", r)
			n.sched.grace = grace
			createJob(t, n.store, "slow", "every 1m", "")
			n.waitIdle()
			n.advance(time.Minute, true)
			<-r.started
			n.cancel()
			clk.BlockUntil(2) // the shutdown grace timer and the lease renewal's
			// Through the grace the lease is renewed, so another scheduler
			// does not take the job over and call its run interrupted.
			for range 4 {
				clk.Advance(20 * time.Second)
				clk.BlockUntil(2) // renewed, and the next renewal set
				_, until, ok, err := n.store.Holder(context.Background())
				if err != nil || !ok || !until.After(clk.Now().Add(15*time.Second)) {
					t.Fatalf("lease during the grace: until %v, held %v, err %v; want renewed", until, ok, err)
				}
			}
			select {
			case <-n.done:
				t.Fatal("the scheduler stopped before the run in progress ended")
			default:
			}
			if tc.finish {
				close(gate)
			} else {
				// The run is cancelled when the grace is over, not before.
				clk.Advance(grace - 80*time.Second - time.Nanosecond)
				select {
				case <-n.done:
					t.Fatal("the run was cancelled before the grace was over")
				default:
				}
				clk.Advance(time.Nanosecond)
			}
			<-n.done
			if st := statuses(t, n.store, "slow"); st[tc.want] != 1 {
				t.Errorf("history = %v, want one %s run", st, tc.want)
			}
		})
	}
}

// TestHolder: the lease names the active scheduler while it runs, and
// nobody once it has stopped.
func TestHolder(t *testing.T) { dbtest.EachTarget(t, testHolder) }

func testHolder(t *testing.T, x dbtest.Target) {
	clk := clock.NewFake(t0)
	n := startNode(t, x, clk, "serve-1", &recorder{})
	holder, until, ok, err := n.store.Holder(context.Background())
	if err != nil || !ok || holder != "serve-1" || !until.After(clk.Now()) {
		t.Fatalf("while running: Holder = %q, %v, %v, %v; want serve-1 holding", holder, until, ok, err)
	}
	n.stop()
	if holder, _, ok, err := n.store.Holder(context.Background()); err != nil || ok {
		t.Fatalf("after stop: Holder = %q, %v, %v; want nobody", holder, ok, err)
	}
}
