package cron

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// BenchmarkRealClock runs an "@every 1s" job on the real clock, one fire
// per iteration (run it with -benchtime 5x), and reports how late the
// fires started, the goroutines the scheduler keeps while idle and, as
// allocs/op, the allocations per fire (lease renewal, claim, run rows,
// FinishRun through SQLite). It fails only if the job does not fire:
// timing is machine-dependent. The scheduler's behaviour over time is
// tested on the fake clock (TestEverySecond and the others).
func BenchmarkRealClock(b *testing.B) {
	db, err := sqlitedb.Open(context.Background(), dbPath(b), sqlitedb.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	st, err := NewStore(db, StoreOptions{})
	if err != nil {
		b.Fatal(err)
	}
	lateness := make(chan time.Duration, 64)
	r := RunnerFunc(func(ctx context.Context, j Job, at time.Time) RunResult {
		lateness <- time.Since(at)
		return RunResult{}
	})
	s, err := New(Options{Store: st, Runner: r})
	if err != nil {
		b.Fatal(err)
	}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	if _, err := st.Create(ctx, Job{Name: "tick", Spec: Spec{Schedule: "@every 1s", Prompt: "p"}}); err != nil {
		b.Fatal(err)
	}
	next := func() time.Duration {
		select {
		case d := <-lateness:
			return d
		case <-time.After(10 * time.Second):
			b.Fatal("the job did not fire within 10s")
			return 0
		}
	}
	late := []time.Duration{next()}
	b.ReportAllocs()
	for b.Loop() {
		late = append(late, next())
	}
	time.Sleep(500 * time.Millisecond) // half-way to the next fire: idle
	idle := runtime.NumGoroutine() - before
	cancel()
	<-done

	sorted := slices.Clone(late)
	slices.Sort(sorted)
	b.ReportMetric(float64(sorted[len(sorted)/2].Microseconds()), "µs-late-p50")
	b.ReportMetric(float64(sorted[len(sorted)-1].Microseconds()), "µs-late-max")
	b.ReportMetric(float64(idle), "idle-goroutines")
	b.Logf("fires: %d; lateness %v; the idle scheduler wakes every %v to renew the lease when no fire is sooner",
		len(late), late, 30*time.Second/3)
	runs, err := st.History(context.Background(), "tick", 100)
	if err != nil {
		b.Fatal(err)
	}
	for _, run := range runs {
		if run.Status != StatusOK {
			b.Errorf("run %+v not ok", run)
		}
	}
}
