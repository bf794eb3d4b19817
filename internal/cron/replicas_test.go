package cron

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// TestReplicasFireOnce runs two schedulers, each with its own handle on
// one database and its own clock, as two replicas would, with the same
// jobs due. Every ten minutes the one holding the lease stalls for a
// minute (a pause, a lost network) while the other's clock goes on, so
// the lease changes hands; the stalled one then catches up. Every fire
// of every job runs exactly once, on time or a little late, never
// twice and never missed.
func TestReplicasFireOnce(t *testing.T) { dbtest.EachTarget(t, testReplicasFireOnce) }

func testReplicasFireOnce(t *testing.T, x dbtest.Target) {
	ctx := context.Background()
	r := &recorder{}
	nodes := []*node{startNode(t, x, clock.NewFake(t0), "a", r), startNode(t, x, clock.NewFake(t0), "b", r)}
	specs := map[string]string{"every-minute": "every 1m", "minutely": "* * * * *", "quarter": "*/15 * * * *", "hourly": "0 * * * *"}
	jobs := map[string]Job{}
	for name, spec := range specs {
		jobs[name] = createJob(t, nodes[0].store, name, spec, "")
		nodes[0].waitIdle()
	}
	nodes[1].sched.Wake() // b learns of jobs at its renewal; wake it so both start with them
	nodes[1].waitIdle()

	const step = 20 * time.Second
	end := t0.Add(90 * time.Minute)
	stalled := -1
	var holders []string
	for i, now := 0, t0; now.Before(end); i++ {
		now = now.Add(step)
		if i%30 == 10 {
			stalled = slices.Index([]string{"a", "b"}, holder(t, nodes[0].store))
		} else if i%30 == 13 {
			stalled = -1 // it catches up below, a minute at once
		}
		fired := make([]int, len(nodes))
		for k, n := range nodes {
			if k != stalled {
				fired[k] = n.clk.Advance(now.Sub(n.clk.Now()))
			}
		}
		for k, n := range nodes {
			if fired[k] > 0 {
				n.waitIdle()
			}
		}
		for _, n := range nodes {
			n.waitRuns()
		}
		if h := holder(t, nodes[0].store); len(holders) == 0 || holders[len(holders)-1] != h {
			holders = append(holders, h)
		}
	}
	if len(holders) < 3 {
		t.Errorf("lease holders in turn = %v; want it to change hands at least twice", holders)
	}
	for name, j := range jobs {
		sched, err := j.schedule(t0)
		if err != nil {
			t.Fatal(err)
		}
		var want []time.Time
		for at, ok := j.NextRunAt, true; ok && !at.After(end); at, ok = sched.Next(at) {
			want = append(want, at)
		}
		if got := r.fires(name); !slices.EqualFunc(got, want, time.Time.Equal) {
			t.Errorf("%s ran for %v,\nwant once for each of %v", name, got, want)
		}
		runs, err := nodes[1].store.History(ctx, name, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if st := statuses(t, nodes[1].store, name); len(runs) != len(want) || st[StatusOK] != len(want) {
			t.Errorf("%s history = %v in %d runs, want %d ok", name, st, len(runs), len(want))
		}
	}
}

// holder is who holds the scheduler lease, by st's clock.
func holder(t *testing.T, st *Store) string {
	t.Helper()
	h, _, _, err := st.Holder(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestLeaseRace: replicas asking for the lease at the same instant, when
// nobody has held it yet and each time the last holder's lease has
// expired, leave exactly one of them holding it.
func TestLeaseRace(t *testing.T) { dbtest.EachTarget(t, testLeaseRace) }

func testLeaseRace(t *testing.T, x dbtest.Target) {
	clk := clock.NewFake(t0)
	stores := []*Store{openStore(t, x, clk), openStore(t, x, clk)}
	for round := range 10 {
		now := t0.Add(time.Duration(round) * time.Minute) // the last round's 30s lease has lapsed
		var wg sync.WaitGroup
		var held, taken atomic.Int32
		for i := range 6 {
			st, who := stores[i%2], fmt.Sprintf("r%d", i)
			wg.Go(func() {
				l, err := st.AcquireLease(context.Background(), who, now, 30*time.Second)
				if err != nil {
					t.Errorf("AcquireLease(%s): %v", who, err)
				}
				if l.Held {
					held.Add(1)
				}
				if l.Taken {
					taken.Add(1)
				}
			})
		}
		wg.Wait()
		// Taken is false when the last holder wins its own lapsed lease again.
		if held.Load() != 1 || taken.Load() > 1 {
			t.Fatalf("round %d: %d replicas hold the lease, %d took it; want 1", round, held.Load(), taken.Load())
		}
	}
}

// TestSyncRace: replicas starting together with one config file each
// sync its jobs at once; every sync succeeds and each job is stored once.
func TestSyncRace(t *testing.T) { dbtest.EachTarget(t, testSyncRace) }

func testSyncRace(t *testing.T, x dbtest.Target) {
	clk := clock.NewFake(t0)
	stores := []*Store{openStore(t, x, clk), openStore(t, x, clk)}
	declared := []Job{
		{Name: "report", Enabled: true, Spec: Spec{Schedule: "0 9 * * *", Prompt: "p"}},
		{Name: "digest", Enabled: true, Spec: Spec{Schedule: "@weekly", Prompt: "p"}},
	}
	var wg sync.WaitGroup
	for i := range 6 {
		st := stores[i%2]
		wg.Go(func() {
			if _, err := st.Sync(context.Background(), declared); err != nil {
				t.Errorf("Sync: %v", err)
			}
		})
	}
	wg.Wait()
	jobs, err := stores[0].List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Name != "digest" || jobs[1].Name != "report" || jobs[0].Source != SourceConfig {
		t.Errorf("jobs after the syncs = %+v, want digest and report from the config", jobs)
	}
}

// TestInterruptRace: a replica taking the lease over closes the runs the
// last holder left running while that holder finishes one of them; a
// run that finished stays finished, never called interrupted after the
// fact.
func TestInterruptRace(t *testing.T) { dbtest.EachTarget(t, testInterruptRace) }

func testInterruptRace(t *testing.T, x dbtest.Target) {
	ctx := context.Background()
	clk := clock.NewFake(t0)
	a, b := openStore(t, x, clk), openStore(t, x, clk)
	createJob(t, a, "hourly", "0 * * * *", "")
	for i := range 40 {
		id, err := a.StartRun(ctx, "hourly", t0.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			if err := a.FinishRun(ctx, id, RunResult{Output: "done"}); err != nil {
				t.Errorf("FinishRun: %v", err)
			}
		})
		wg.Go(func() {
			if err := b.InterruptRuns(ctx, clk.Now(), nil); err != nil {
				t.Errorf("InterruptRuns: %v", err)
			}
		})
		wg.Wait()
		runs, err := a.History(ctx, "hourly", 1)
		if err != nil || len(runs) != 1 || runs[0].ID != id || runs[0].Status != StatusOK {
			t.Fatalf("round %d: runs = %+v, %v; want run %d ok", i, runs, err, id)
		}
	}
}
