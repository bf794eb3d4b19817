package team

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/dbtest"
)

// replicaOptions are the Store options of the replicas below: the real
// clock, and polls short enough that a task another replica posted is
// seen soon.
var replicaOptions = StoreOptions{PollInterval: 50 * time.Millisecond}

// ledger records which worker ran which task, however often.
type ledger struct {
	mu   sync.Mutex
	runs map[int64][]string
}

func (l *ledger) ran(id int64, worker string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[int64][]string{}
	}
	l.runs[id] = append(l.runs[id], worker)
}

func (l *ledger) of(id int64) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs[id]
}

// waitAll waits for the tasks ids of run, failing t with how many are in
// each state when they are not all finished within a minute.
func waitAll(t *testing.T, s *Store, run int64, ids []int64) []Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ts, err := s.Wait(ctx, run, ids)
	if err != nil {
		states := map[State]int{}
		for _, tk := range ts {
			states[tk.State]++
		}
		t.Fatalf("waiting for %d tasks: %v; their states: %v", len(ids), err, states)
	}
	return ts
}

// TestReplicasDoEveryTaskOnce runs three replicas on one database, each a
// handle of its own with four workers, through 200 tasks posted while
// they work: 150 leaves, and 50 joins that each take three leaves as
// inputs, so inputs of one task finish at once on different replicas and
// joins are posted on inputs finishing meanwhile. Every task is done
// exactly once, by one worker in one attempt, and no join is left
// waiting on inputs that are done.
func TestReplicasDoEveryTaskOnce(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		var stores []*Store
		for range 3 {
			stores = append(stores, NewStore(x.Open(t), replicaOptions))
		}
		r := mustRun(t, stores[0])
		var log ledger
		for i, s := range stores {
			for j, role := range []string{"leaf", "leaf", "join", "join"} {
				name := fmt.Sprintf("replica%d/worker%d", i, j)
				serve(t, &Worker{Store: s, Role: role, Name: name, Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
					log.ran(tk.ID, name)
					if len(in) != len(tk.Inputs) {
						return Result{}, fmt.Errorf("task %d has %d input artifacts, want %d", tk.ID, len(in), len(tk.Inputs))
					}
					return Result{Summary: name, Artifacts: []Artifact{{Name: "out", Kind: KindText, Content: fmt.Sprint(tk.ID)}}}, nil
				}})
			}
		}
		var ids []int64
		for k := range 50 {
			poster := stores[k%len(stores)]
			var leaves []int64
			for range 3 {
				leaves = append(leaves, mustPost(t, poster, r.ID, "leaf").ID)
			}
			join := mustPost(t, poster, r.ID, "join", leaves...)
			ids = append(append(ids, leaves...), join.ID)
		}
		for _, tk := range waitAll(t, stores[1], r.ID, ids) {
			runs := log.of(tk.ID)
			if tk.State != StateDone || tk.Attempts != 1 || len(runs) != 1 || tk.Summary != runs[0] {
				t.Errorf("task %d (%s): %s after %d attempts (error %q), summary %q, run by %v; want done once",
					tk.ID, tk.Role, tk.State, tk.Attempts, tk.Error, tk.Summary, runs)
			}
		}
	})
}

// TestDeadReplicasTasksAreTakenAgain: a replica's database handle closes
// while its workers run tasks, as when its process dies. What those
// workers produce is never recorded; the other replicas claim the tasks
// again once their leases have run out, not before, and each is done
// once, as is every task posted after.
func TestDeadReplicasTasksAreTakenAgain(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		const lease = time.Second
		dead, err := x.TryOpen(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer dead.Close()
		live := []*Store{NewStore(x.Open(t), replicaOptions), NewStore(x.Open(t), replicaOptions)}
		r := mustRun(t, live[0])
		held := []int64{mustPost(t, live[0], r.ID, "job").ID, mustPost(t, live[0], r.ID, "job").ID}
		var log ledger
		claimed := make(chan Task, len(held))
		for j := range held {
			name := fmt.Sprintf("dead/worker%d", j)
			serve(t, &Worker{Store: NewStore(dead, replicaOptions), Role: "job", Name: name, Lease: lease,
				Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
					log.ran(tk.ID, name)
					claimed <- tk
					<-ctx.Done() // it never gets further: the process is gone
					return Result{Summary: name}, nil
				}})
		}
		var first []Task
		for range held {
			first = append(first, <-claimed)
		}
		if err := dead.Close(); err != nil {
			t.Fatal(err)
		}
		for i, s := range live {
			for j := range 4 {
				name := fmt.Sprintf("replica%d/worker%d", i, j)
				serve(t, &Worker{Store: s, Role: "job", Name: name, Lease: lease, Run: func(ctx context.Context, tk Task, in []Artifact) (Result, error) {
					log.ran(tk.ID, name)
					return Result{Summary: name}, nil
				}})
			}
		}
		ids := append([]int64{}, held...)
		for range 20 {
			ids = append(ids, mustPost(t, live[1], r.ID, "job").ID)
		}
		ts := waitAll(t, live[0], r.ID, ids)
		for _, tk := range ts[len(held):] {
			if runs := log.of(tk.ID); tk.State != StateDone || tk.Attempts != 1 || len(runs) != 1 || tk.Summary != runs[0] {
				t.Errorf("task %d: %s after %d attempts, summary %q, run by %v; want done once", tk.ID, tk.State, tk.Attempts, tk.Summary, runs)
			}
		}
		for i, tk := range ts[:len(held)] {
			runs := log.of(tk.ID)
			if tk.State != StateDone || tk.Attempts != 2 || len(runs) != 2 || tk.Summary != runs[1] {
				t.Errorf("dead replica's task %d: %s after %d attempts, summary %q, run by %v; want done by the second, live worker",
					tk.ID, tk.State, tk.Attempts, tk.Summary, runs)
			}
			var was Task
			for _, f := range first {
				if f.ID == tk.ID {
					was = f
				}
			}
			if was.ID == 0 {
				t.Fatalf("task %d was not among those the dead replica claimed (%d)", tk.ID, i)
			}
			if tk.ClaimedAt.Before(was.LeaseUntil) {
				t.Errorf("task %d was claimed again at %v, before its dead worker's lease ended at %v", tk.ID, tk.ClaimedAt, was.LeaseUntil)
			}
		}
	})
}
