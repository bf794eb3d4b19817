package team

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/dbtest"
)

// BenchmarkClaimLatency measures how long a task waits between becoming
// ready and being claimed (claimed_at − ready_at, as stored), with N
// workers waiting on one database, on each backend. "shared" workers use
// the poster's Store and wake on its in-process signal; "procs" workers
// each open the database themselves, as other processes (or replicas)
// would, and see new tasks only by polling every 50 ms. Each task is completed at once, so the figure is
// the queue's own latency, not a task's work.
func BenchmarkClaimLatency(b *testing.B) {
	for _, backend := range dbtest.Backends() {
		for _, mode := range []string{"shared", "procs"} {
			for _, n := range []int{1, 4, 16} {
				b.Run(fmt.Sprintf("%s/%s/workers=%d", backend, mode, n), func(b *testing.B) {
					benchClaims(b, dbtest.New(b, backend), mode == "procs", n)
				})
			}
		}
	}
}

func benchClaims(b *testing.B, x dbtest.Target, procs bool, workers int) {
	opt := StoreOptions{PollInterval: 50 * time.Millisecond}
	poster := NewStore(x.Open(b), opt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := mustRun(b, poster)
	var wg sync.WaitGroup
	for i := range workers {
		s := poster
		if procs {
			s = NewStore(x.Open(b), opt)
		}
		w := &Worker{Store: s, Role: "r", Name: fmt.Sprint("w", i), Run: func(context.Context, Task, []Artifact) (Result, error) {
			return Result{}, nil
		}}
		wg.Add(1)
		go func() { defer wg.Done(); _ = w.Serve(ctx) }()
	}
	ids := make([]int64, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t, err := poster.Post(ctx, r.ID, Post{Role: "r", Description: "d"})
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, t.ID)
		time.Sleep(2 * time.Millisecond) // tasks arrive spread out, not in one burst
	}
	if _, err := poster.Wait(ctx, r.ID, ids); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	cancel()
	wg.Wait()
	ts, err := poster.Tasks(context.Background(), r.ID)
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, len(ts))
	for _, t := range ts {
		lat = append(lat, t.ClaimedAt.Sub(t.ReadyAt))
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
