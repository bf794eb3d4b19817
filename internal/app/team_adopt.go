package app

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/team"
)

// teamAdoptEvery is how often the leading scheduler looks for team runs
// whose holder stopped. A run is found once its lease ran out, or at
// once when its holder stopped cleanly and released it.
const teamAdoptEvery = 5 * time.Second

// teamAdoptBackoff is how long a run whose resume failed without ending
// it (its team's agents are no longer configured, say) is left before it
// is tried again, doubling with each failure up to teamAdoptMaxBackoff:
// a run that cannot go on costs a process a while, not every sweep.
const (
	teamAdoptBackoff    = 30 * time.Second
	teamAdoptMaxBackoff = time.Hour
)

// TeamAdoptResult is what "hermes team adopt" prints: how the run it
// took over ended, or why it left the run alone.
type TeamAdoptResult struct {
	Run   int64  `json:"run"`
	State string `json:"state,omitempty"`
	// Error is why the run could not go on; it is still active then.
	Error string `json:"error,omitempty"`
	// Skipped says which process holds the run, when another took it
	// first or renewed it after all.
	Skipped string `json:"skipped,omitempty"`
}

// teamResumer goes on with an orphaned team run until it ends (or ctx
// does), in a process of its own: ProcRunner is one.
type teamResumer interface {
	ResumeTeam(ctx context.Context, run int64) error
}

// orphanLister is what adoption needs of the team store.
type orphanLister interface {
	Orphans(ctx context.Context) ([]team.Run, error)
}

// teamAdopter takes over the team runs of scheduled jobs whose process
// stopped before they ended: the replica it ran on was killed or shut
// down, or hermes serve was restarted. Only the process that fires the
// jobs (leading) adopts, so replicas do not race for each run; the run's
// compare-and-set hold settles the rare race that is left. Each run is
// resumed once at a time here, in a process of its own like a job's run,
// which delivers the answer along the job's chain when it ends.
type teamAdopter struct {
	store   orphanLister
	resume  teamResumer
	leading func() bool
	log     *slog.Logger
	clock   clock.Clock
	every   time.Duration

	mu     sync.Mutex
	active map[int64]bool
	failed map[int64]backoff
	wg     sync.WaitGroup
}

// backoff is when a run whose resume failed may be tried again, and how
// long the wait after its next failure is.
type backoff struct {
	after time.Time
	next  time.Duration
}

// run looks for orphans every a.every until ctx ends, then waits for the
// resumes it started (which stop with ctx, releasing their runs).
func (a *teamAdopter) run(ctx context.Context) {
	defer a.wg.Wait()
	for {
		a.sweep(ctx)
		if a.clock.Sleep(ctx, a.every) != nil {
			return
		}
	}
}

// sweep starts a resume of each orphaned run not being resumed here yet.
func (a *teamAdopter) sweep(ctx context.Context) {
	if !a.leading() {
		return
	}
	runs, err := a.store.Orphans(ctx)
	if err != nil {
		if ctx.Err() == nil {
			a.log.Error("team: looking for runs to take over", "err", err)
		}
		return
	}
	now := a.clock.Now()
	for _, r := range runs {
		a.mu.Lock()
		skip := a.active[r.ID] || now.Before(a.failed[r.ID].after)
		if !skip {
			a.active[r.ID] = true
		}
		a.mu.Unlock()
		if skip {
			continue
		}
		a.log.Info("team: taking over a run whose process stopped", "run", r.ID, "team", r.Team, "holder", r.Holder)
		a.wg.Go(func() {
			err := a.resume.ResumeTeam(ctx, r.ID)
			a.mu.Lock()
			defer a.mu.Unlock()
			delete(a.active, r.ID)
			if err == nil || ctx.Err() != nil {
				delete(a.failed, r.ID)
				return
			}
			b := a.failed[r.ID]
			b.next = min(max(b.next*2, teamAdoptBackoff), teamAdoptMaxBackoff)
			b.after = a.clock.Now().Add(b.next)
			a.failed[r.ID] = b
			a.log.Error("team: the run taken over could not go on", "run", r.ID, "err", err, "retry_in", b.next.String())
		})
	}
}

// adoptTeamRuns runs a teamAdopter for the scheduler whose Leading is
// leading, when this process has the team store and resume can run
// teams; the returned function waits for it to stop after ctx ends.
func (a *App) adoptTeamRuns(ctx context.Context, leading func() bool, runner any) (wait func()) {
	resume, ok := runner.(teamResumer)
	if !ok || a.Team == nil {
		return func() {}
	}
	ad := &teamAdopter{store: a.Team, resume: resume, leading: leading, log: a.Log, clock: clock.OrReal(a.opts.Clock),
		every: teamAdoptEvery, active: map[int64]bool{}, failed: map[int64]backoff{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ad.run(ctx)
	}()
	return func() { <-done }
}
