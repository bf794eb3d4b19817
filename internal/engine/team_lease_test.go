package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/team"
)

// A job's run (unattended) is leased; a run its holder on another host
// keeps renewing is not taken over, and once the lease ran out another
// process takes it over, finishes it, and leaves it unleased. A run by
// hand is never leased.
func TestUnattendedTeamRunIsTakenOverOnceItsLeaseRunsOut(t *testing.T) {
	r := newTeamRig(t)
	ctx := context.Background()
	spec, _ := json.Marshal(r.spec)
	dead, err := r.queue.StartRun(ctx, team.Start{Team: "research", Goal: "weekly prices", Spec: string(spec),
		Holder: "elsewhere.example/4242", Lease: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.RunTeam(ctx, engine.TeamRun{Resume: dead.ID}); !errors.Is(err, engine.ErrTeamBusy) {
		t.Fatalf("resuming a run whose lease holds on another host: %v, want ErrTeamBusy", err)
	}
	if err := r.queue.ReleaseRun(ctx, dead.ID, "elsewhere.example/4242"); err != nil {
		t.Fatal(err)
	}
	run, err := r.e.RunTeam(ctx, engine.TeamRun{Resume: dead.ID})
	if err != nil {
		t.Fatal(err)
	}
	if run.State != team.RunDone || run.Answer != "REPORT: trend: rising" || !run.LeaseUntil.IsZero() || run.Holder == dead.Holder {
		t.Fatalf("the run taken over: %+v", run)
	}

	byHand, err := r.e.RunTeam(ctx, engine.TeamRun{Team: r.spec, Goal: "weekly prices", Started: func(x team.Run) {
		if !x.LeaseUntil.IsZero() {
			t.Errorf("a run by hand is leased until %v", x.LeaseUntil)
		}
	}})
	if err != nil || byHand.State != team.RunDone {
		t.Fatalf("run by hand: %+v, %v", byHand, err)
	}
}

// An unattended run stopped in its process releases its lease, so the
// run is an orphan at once, and says who goes on with it.
func TestInterruptedUnattendedRunIsReleased(t *testing.T) {
	r := newTeamRig(t)
	hold := make(chan struct{})
	r.hold = hold
	ctx, cancel := context.WithCancel(context.Background())
	var started team.Run
	done := make(chan error, 1)
	go func() {
		_, err := r.e.RunTeam(ctx, engine.TeamRun{Team: r.spec, Goal: "weekly prices", Unattended: true, Started: func(x team.Run) { started = x }})
		done <- err
	}()
	<-r.analysing
	cancel()
	err := <-done
	close(hold)
	if err == nil || !strings.Contains(err.Error(), "hermes serve goes on with it") {
		t.Fatalf("interrupted unattended run: %v", err)
	}
	if started.LeaseUntil.IsZero() {
		t.Fatal("an unattended run was not leased")
	}
	orphans, err := r.queue.Orphans(context.Background())
	if err != nil || len(orphans) != 1 || orphans[0].ID != started.ID || orphans[0].State != team.RunActive {
		t.Fatalf("orphans after the interruption: %+v, %v", orphans, err)
	}
}

// A holder whose run another process took over (it renewed too late)
// stops at its next renewal: it ends nothing, and the run goes on with
// the new holder.
func TestTeamRunTakenFromItsHolderStops(t *testing.T) {
	r := newTeamRig(t)
	hold := make(chan struct{})
	r.hold = hold
	defer close(hold)
	ctx := context.Background()
	type result struct {
		run team.Run
		err error
	}
	done := make(chan result, 1)
	go func() {
		run, err := r.e.RunTeam(ctx, engine.TeamRun{Team: r.spec, Goal: "weekly prices", Unattended: true})
		done <- result{run, err}
	}()
	<-r.analysing
	// The take is a compare-and-set on the holder and the lease, and the
	// holder renews its lease as it runs: a renewal between the read and
	// the take makes the take fail, as it would another replica's, which
	// reads again and tries again.
	var runs []team.Run
	var err error
	for try := 0; ; try++ {
		if runs, err = r.queue.Runs(ctx, 1); err != nil || len(runs) != 1 {
			t.Fatal(runs, err)
		}
		if err = r.queue.HoldRun(ctx, runs[0], "thief.example/1", time.Hour); err == nil {
			break
		}
		if try == 50 {
			t.Fatalf("taking the run over: %v", err)
		}
	}
	select {
	case res := <-done:
		if !errors.Is(res.err, team.ErrLeaseLost) || !strings.Contains(res.err.Error(), "thief.example/1 goes on with it") {
			t.Fatalf("the run taken from its holder ended with %v", res.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the holder went on with a run taken from it")
	}
	got, _ := r.queue.GetRun(ctx, runs[0].ID)
	if got.State != team.RunActive || got.Holder != "thief.example/1" {
		t.Fatalf("the run after its old holder stopped: %+v", got)
	}
}
