package crontest

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/cron"
)

const ttl = 30 * time.Second

// acquire takes or renews the lease and fails the test on error.
func acquire(t *testing.T, st cron.JobStore, holder string, now time.Time) cron.Lease {
	t.Helper()
	l, err := st.AcquireLease(ctx(t), holder, now, ttl)
	if err != nil {
		t.Fatalf("AcquireLease(%s): %v", holder, err)
	}
	return l
}

// testLease: one holder at a time; the holder renews; another takes the
// lease only once it has expired or been released.
func testLease(t *testing.T, st cron.JobStore, _ *clock.Fake) {
	ctx := ctx(t)
	if l := acquire(t, st, "a", t0); !l.Held || !l.Taken || !l.Until.Equal(t0.Add(ttl)) {
		t.Errorf("a on a free lease = %+v, want held, taken, until %v", l, t0.Add(ttl))
	}
	if l := acquire(t, st, "b", t0.Add(time.Second)); l.Held || l.Taken || !l.Until.Equal(t0.Add(ttl)) {
		t.Errorf("b while a holds = %+v, want not held, until a's %v", l, t0.Add(ttl))
	}
	renewed := t0.Add(10 * time.Second)
	if l := acquire(t, st, "a", renewed); !l.Held || l.Taken || !l.Until.Equal(renewed.Add(ttl)) {
		t.Errorf("a renewing = %+v, want held, not taken, until %v", l, renewed.Add(ttl))
	}
	if l := acquire(t, st, "b", t0.Add(ttl)); l.Held {
		t.Errorf("b before the renewed lease expired = %+v", l)
	}
	expired := renewed.Add(ttl)
	if l := acquire(t, st, "b", expired); !l.Held || !l.Taken || !l.Until.Equal(expired.Add(ttl)) {
		t.Errorf("b once a's lease expired = %+v, want held, taken", l)
	}
	if l := acquire(t, st, "a", expired.Add(time.Second)); l.Held {
		t.Errorf("a after losing the lease = %+v", l)
	}
	if err := st.ReleaseLease(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if l := acquire(t, st, "c", expired.Add(2*time.Second)); l.Held {
		t.Errorf("c after a non-holder released = %+v; b still holds", l)
	}
	if err := st.ReleaseLease(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if l := acquire(t, st, "c", expired.Add(3*time.Second)); !l.Held || !l.Taken || l.Holder != "c" {
		t.Errorf("c after b released = %+v, want held", l)
	}
	// A holder known to be gone has its live lease taken at once; the
	// lease of another is not.
	at := expired.Add(4 * time.Second)
	if l := acquire(t, st, "d", at); l.Held || l.Holder != "c" {
		t.Errorf("d while c holds = %+v, want not held and c named", l)
	}
	if l, err := st.TakeLease(ctx, "d", "b", at, ttl); err != nil || l.Held {
		t.Errorf("d taking the lease from b, who has it not = %+v, %v", l, err)
	}
	if l, err := st.TakeLease(ctx, "d", "c", at, ttl); err != nil || !l.Held || !l.Taken || !l.Until.Equal(at.Add(ttl)) {
		t.Errorf("d taking the lease from c = %+v, %v; want held, taken", l, err)
	}
}

// testHolder: Holder names the lease's holder until it lapses by the
// store's clock, and nobody once it is released.
func testHolder(t *testing.T, st cron.JobStore, clk *clock.Fake) {
	ctx := ctx(t)
	if h, _, ok, err := st.Holder(ctx); err != nil || ok {
		t.Errorf("Holder with no lease = %q, %v, %v; want nobody", h, ok, err)
	}
	acquire(t, st, "serve-1", clk.Now())
	h, until, ok, err := st.Holder(ctx)
	if err != nil || !ok || h != "serve-1" || !until.Equal(t0.Add(ttl)) {
		t.Errorf("Holder = %q, %v, %v, %v; want serve-1 until %v", h, until, ok, err, t0.Add(ttl))
	}
	clk.Advance(ttl)
	if h, _, ok, err := st.Holder(ctx); err != nil || ok || h != "serve-1" {
		t.Errorf("Holder after the lease lapsed = %q, %v, %v; want serve-1, lapsed", h, ok, err)
	}
	if err := st.ReleaseLease(ctx, "serve-1"); err != nil {
		t.Fatal(err)
	}
	if h, _, ok, err := st.Holder(ctx); err != nil || ok || h != "" {
		t.Errorf("Holder after release = %q, %v, %v; want nobody", h, ok, err)
	}
}

// testDueAndEarliest: the next-fire bookkeeping the scheduler sleeps and
// wakes by: only enabled jobs count, soonest first.
func testDueAndEarliest(t *testing.T, st cron.JobStore, _ *clock.Fake) {
	ctx := ctx(t)
	if _, ok, err := st.Earliest(ctx); err != nil || ok {
		t.Errorf("Earliest of no jobs: %v, %v; want none", ok, err)
	}
	create(t, st, "daily", "@daily")         // 2026-12-03 00:00
	create(t, st, "hourly", "0 * * * *")     // 09:00
	create(t, st, "quarter", "*/15 * * * *") // 08:45
	create(t, st, "paused", "every 1m")      // 08:31, but paused
	if err := st.Pause(ctx, "paused"); err != nil {
		t.Fatal(err)
	}
	at, ok, err := st.Earliest(ctx)
	if err != nil || !ok || !at.Equal(t0.Add(15*time.Minute)) {
		t.Errorf("Earliest = %v, %v, %v; want %v", at, ok, err, t0.Add(15*time.Minute))
	}
	names := func(jobs []cron.Job, err error) string {
		if err != nil {
			t.Fatalf("Due: %v", err)
		}
		var out []string
		for _, j := range jobs {
			out = append(out, j.Name)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{
		{0, ""},
		{15*time.Minute - time.Microsecond, ""},
		{15 * time.Minute, "quarter"},
		{2 * time.Hour, "quarter,hourly"},
		{24 * time.Hour, "quarter,hourly,daily"},
	} {
		if got := names(st.Due(ctx, t0.Add(tc.at))); got != tc.want {
			t.Errorf("Due(t0+%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}

// testClaim: a claim by the holder applies the plan at once (next fire,
// records, runs started); by anyone else, or for a fire already claimed,
// it changes nothing.
func testClaim(t *testing.T, st cron.JobStore, _ *clock.Fake) {
	ctx := ctx(t)
	j := create(t, st, "hourly", "0 * * * *")
	fire := j.NextRunAt // 09:00
	now := fire.Add(time.Second)
	missed := fire.Add(-time.Hour)
	p := cron.Plan{Job: "hourly", Expect: fire, Next: fire.Add(time.Hour),
		Records: []cron.Record{{At: missed, Status: cron.StatusMissed, Why: "not running at 08:00"}},
		Start:   []time.Time{fire}}

	if _, err := st.Claim(ctx, "a", now, p); !errors.Is(err, cron.ErrNotHolder) {
		t.Errorf("Claim with no lease: %v, want ErrNotHolder", err)
	}
	acquire(t, st, "b", now)
	if _, err := st.Claim(ctx, "a", now, p); !errors.Is(err, cron.ErrNotHolder) {
		t.Errorf("Claim while b holds the lease: %v, want ErrNotHolder", err)
	}
	if runs := history(t, st, "hourly"); len(runs) != 0 || !get(t, st, "hourly").NextRunAt.Equal(fire) {
		t.Fatalf("a refused claim changed the store: runs %+v", runs)
	}

	ids, err := st.Claim(ctx, "b", now, p)
	if err != nil || len(ids) != 1 {
		t.Fatalf("Claim by the holder = %v, %v; want one run", ids, err)
	}
	if j := get(t, st, "hourly"); !j.NextRunAt.Equal(fire.Add(time.Hour)) || !j.Enabled || !j.RunningSince.Equal(now) {
		t.Errorf("job after claim = %+v, want next %v, running since %v", j, fire.Add(time.Hour), now)
	}
	runs := history(t, st, "hourly")
	if len(runs) != 2 {
		t.Fatalf("history after claim = %+v, want the missed record and the started run", runs)
	}
	started, record := runs[0], runs[1]
	if started.ID != ids[0] || started.Status != cron.StatusRunning || !started.ScheduledFor.Equal(fire) || !started.StartedAt.Equal(now) {
		t.Errorf("started run = %+v", started)
	}
	if record.Status != cron.StatusMissed || !record.ScheduledFor.Equal(missed) || record.Error != "not running at 08:00" ||
		!record.EndedAt.Equal(now) || !record.StartedAt.IsZero() {
		t.Errorf("missed record = %+v", record)
	}
	if _, err := st.Claim(ctx, "b", now, p); !errors.Is(err, cron.ErrNotHolder) {
		t.Errorf("second claim of the same fire: %v, want ErrNotHolder", err)
	}
	if _, err := st.Claim(ctx, "b", now.Add(ttl), cron.Plan{Job: "hourly", Expect: fire.Add(time.Hour), Next: fire.Add(2 * time.Hour)}); !errors.Is(err, cron.ErrNotHolder) {
		t.Errorf("claim once the holder's lease expired: %v, want ErrNotHolder", err)
	}

	// A spent one-shot is disabled by its claim; a paused job is not
	// claimed at all.
	once := create(t, st, "once", "+1h")
	ids, err = st.Claim(ctx, "b", now, cron.Plan{Job: "once", Expect: once.NextRunAt, Disable: true, Start: []time.Time{once.NextRunAt}})
	if err != nil || len(ids) != 1 {
		t.Fatalf("claim of a one-shot = %v, %v", ids, err)
	}
	if j := get(t, st, "once"); j.Enabled || !j.NextRunAt.IsZero() {
		t.Errorf("one-shot after its claim = %+v, want disabled, no next fire", j)
	}
	paused := create(t, st, "paused", "@daily")
	st.Pause(ctx, "paused")
	if _, err := st.Claim(ctx, "b", now, cron.Plan{Job: "paused", Expect: paused.NextRunAt, Start: []time.Time{paused.NextRunAt}}); !errors.Is(err, cron.ErrNotHolder) {
		t.Errorf("claim of a paused job: %v, want ErrNotHolder", err)
	}
}

// testClaimOnce: two schedulers that both believe they hold the lease
// claim the same fire at once; it runs once.
func testClaimOnce(t *testing.T, st cron.JobStore, _ *clock.Fake) {
	j := create(t, st, "hourly", "0 * * * *")
	now := j.NextRunAt
	acquire(t, st, "a", now)
	p := cron.Plan{Job: "hourly", Expect: j.NextRunAt, Next: j.NextRunAt.Add(time.Hour), Start: []time.Time{j.NextRunAt}}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		claimed int
	)
	for range 8 {
		wg.Go(func() {
			ids, err := st.Claim(ctx(t), "a", now, p)
			switch {
			case errors.Is(err, cron.ErrNotHolder):
			case err != nil:
				t.Errorf("Claim: %v", err)
			default:
				mu.Lock()
				claimed += len(ids)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if claimed != 1 || len(history(t, st, "hourly")) != 1 {
		t.Errorf("%d runs claimed, %d in history; want 1", claimed, len(history(t, st, "hourly")))
	}
}

// testInterruptRuns: runs a stopped scheduler left running are closed as
// failed, their jobs' running marks cleared, except the runs the new
// holder still has in progress.
func testInterruptRuns(t *testing.T, st cron.JobStore, _ *clock.Fake) {
	ctx := ctx(t)
	create(t, st, "ghost", "@hourly")
	create(t, st, "mine", "@hourly")
	ghost, err := st.StartRun(ctx, "ghost", t0)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := st.StartRun(ctx, "mine", t0)
	if err != nil {
		t.Fatal(err)
	}
	done, err := st.StartRun(ctx, "mine", t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, done, cron.RunResult{Output: "fine"}); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Hour)
	if err := st.InterruptRuns(ctx, now, map[int64]bool{mine: true}); err != nil {
		t.Fatal(err)
	}
	r := history(t, st, "ghost")[0]
	if r.ID != ghost || r.Status != cron.StatusError || !strings.Contains(r.Error, "interrupted") || !r.EndedAt.Equal(now) {
		t.Errorf("the ghost's run = %+v, want closed as interrupted at %v", r, now)
	}
	if j := get(t, st, "ghost"); !j.RunningSince.IsZero() {
		t.Errorf("ghost still marked running since %v", j.RunningSince)
	}
	for _, r := range history(t, st, "mine") {
		if want := map[int64]string{mine: cron.StatusRunning, done: cron.StatusOK}[r.ID]; r.Status != want {
			t.Errorf("run %d of mine = %s, want %s", r.ID, r.Status, want)
		}
	}
}
