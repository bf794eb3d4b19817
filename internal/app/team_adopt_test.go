package app

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/team"
)

// orphanList is a team store whose orphans are runs.
type orphanList struct{ runs []team.Run }

func (o *orphanList) Orphans(context.Context) ([]team.Run, error) { return o.runs, nil }

// resumes records the runs resumed, and fails them while fail is set.
type resumes struct {
	mu   sync.Mutex
	got  []int64
	fail error
}

func (r *resumes) ResumeTeam(_ context.Context, run int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, run)
	return r.fail
}

func (r *resumes) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// The adopter resumes orphaned runs only while its scheduler leads; a
// run whose resume failed without ending it waits 30 s before it is tried
// again, doubling with each failure up to an hour, so a run that cannot
// go on does not cost a process every sweep; one that went on is tried
// at once when it is an orphan again.
func TestTeamAdopterLeadsAndBacksOff(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC))
	leading := false
	res := &resumes{fail: errors.New("team research: agent \"ghost\" is not configured")}
	a := &teamAdopter{store: &orphanList{runs: []team.Run{{ID: 7, Team: "research"}}}, resume: res, leading: func() bool { return leading },
		log: slog.New(slog.DiscardHandler), clock: clk, every: teamAdoptEvery, active: map[int64]bool{}, failed: map[int64]backoff{}}
	sweep := func() int {
		a.sweep(context.Background())
		a.wg.Wait()
		return res.count()
	}
	if n := sweep(); n != 0 {
		t.Fatalf("a replica that does not fire the jobs resumed %d runs", n)
	}
	leading = true
	if n := sweep(); n != 1 {
		t.Fatalf("the first sweep that leads: %d resumes, want 1", n)
	}
	for i, wait := range []time.Duration{30, 60, 120, 240, 480, 960, 1920, 3600, 3600} {
		wait *= time.Second
		clk.Advance(wait - time.Nanosecond)
		if n := sweep(); n != i+1 {
			t.Fatalf("failure %d: tried again before %v had passed", i+1, wait)
		}
		clk.Advance(time.Nanosecond)
		if n := sweep(); n != i+2 {
			t.Fatalf("failure %d: not tried again %v later (%d resumes)", i+1, wait, n)
		}
	}
	res.mu.Lock()
	res.fail = nil
	res.mu.Unlock()
	clk.Advance(time.Hour)
	if n := sweep(); n != 11 {
		t.Fatalf("the resume after the backoff: %d resumes, want 11", n)
	}
	if n := sweep(); n != 12 {
		t.Fatalf("a run that went on and is an orphan again waited: %d resumes, want 12", n)
	}
}

// A run being resumed here is not resumed a second time meanwhile.
func TestTeamAdopterResumesARunOnceAtATime(t *testing.T) {
	release := make(chan struct{})
	started := make(chan int64, 4)
	r := resumeFunc(func(_ context.Context, run int64) error {
		started <- run
		<-release
		return nil
	})
	a := &teamAdopter{store: &orphanList{runs: []team.Run{{ID: 3}, {ID: 4}}}, resume: r, leading: func() bool { return true },
		log: slog.New(slog.DiscardHandler), clock: clock.NewFake(time.Now()), every: teamAdoptEvery, active: map[int64]bool{}, failed: map[int64]backoff{}}
	a.sweep(context.Background())
	a.sweep(context.Background())
	got := map[int64]bool{<-started: true, <-started: true}
	close(release)
	a.wg.Wait()
	if len(started) != 0 || !got[3] || !got[4] {
		t.Fatalf("resumed %v and %d more; want 3 and 4 once each", got, len(started))
	}
}

type resumeFunc func(context.Context, int64) error

func (f resumeFunc) ResumeTeam(ctx context.Context, run int64) error { return f(ctx, run) }
