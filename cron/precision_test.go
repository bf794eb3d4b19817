package cron

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// TestRealClockPrecision runs an "@every 1s" job on the real clock for
// about five seconds and logs how late each fire started, the goroutines
// the scheduler keeps while idle and the allocations per fire. It fails
// only if the job did not fire at all: timing is machine-dependent.
func TestRealClockPrecision(t *testing.T) {
	if testing.Short() {
		t.Skip("real-clock measurement")
	}
	db, err := sqlitedb.Open(context.Background(), dbPath(t), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := NewStore(db, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lateness []time.Duration
	r := RunnerFunc(func(ctx context.Context, j Job, at time.Time) RunResult {
		mu.Lock()
		lateness = append(lateness, time.Since(at))
		mu.Unlock()
		return RunResult{}
	})
	s, err := New(Options{Store: st, Runner: r})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	if _, err := st.Create(ctx, Job{Name: "tick", Spec: Spec{Schedule: "@every 1s", Prompt: "p"}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	idle := runtime.NumGoroutine() - before
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	mu.Lock()
	n0 := len(lateness)
	mu.Unlock()
	time.Sleep(4 * time.Second)
	runtime.ReadMemStats(&m1)
	cancel()
	<-done

	mu.Lock()
	defer mu.Unlock()
	if len(lateness) < 2 {
		t.Fatalf("only %d fires in 5.5s", len(lateness))
	}
	fires := len(lateness) - n0
	sorted := slices.Clone(lateness)
	slices.Sort(sorted)
	t.Logf("fires: %d in ~5.5s; lateness p50 %v, max %v (all: %v)",
		len(lateness), sorted[len(sorted)/2], sorted[len(sorted)-1], lateness)
	t.Logf("idle: %d goroutine(s) added by the running scheduler; it wakes every %v to renew the lease when no fire is sooner",
		idle, 30*time.Second/3)
	if fires > 0 {
		t.Logf("allocations per fire (lease renewal, claim, run rows, FinishRun through SQLite): %d objects, %d bytes",
			(m1.Mallocs-m0.Mallocs)/uint64(fires), (m1.TotalAlloc-m0.TotalAlloc)/uint64(fires))
	}
	runs, err := st.History(context.Background(), "tick", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		if run.Status != StatusOK {
			t.Errorf("run %+v not ok", run)
		}
	}
}
