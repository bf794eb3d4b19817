package cron

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// Runner executes one run of a job: the agent turn or script, and the
// delivery of its result. It is called in its own goroutine; ctx ends
// when the scheduler has stopped and its shutdown grace has passed.
type Runner interface {
	Run(ctx context.Context, job Job, scheduledFor time.Time) RunResult
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, job Job, scheduledFor time.Time) RunResult

func (f RunnerFunc) Run(ctx context.Context, job Job, at time.Time) RunResult { return f(ctx, job, at) }

// Options configure a Scheduler.
type Options struct {
	Store  JobStore
	Runner Runner
	// Clock is the time the scheduler fires by; nil means the real clock.
	Clock clock.Clock
	// Holder names this scheduler in the lease; default host-pid-random.
	Holder string
	// LeaseTTL is how long the lease lasts unrenewed (default 30s); it
	// is renewed every TTL/3, so a crashed holder is replaced within TTL.
	LeaseTTL time.Duration
	// MaxConcurrent bounds the runs in progress at once (default 4).
	MaxConcurrent int
	// ShutdownGrace is how long runs in progress may go on once Run's
	// context ends before their context is cancelled too; zero cancels
	// them at once. No new run starts during the grace.
	ShutdownGrace time.Duration
	// Gone, when set, reports whether the process holding the lease is
	// known to be gone (it ended on this host): its lease is then taken
	// at once, so a scheduler restarted after a crash does not wait for
	// the dead one's lease to lapse.
	Gone   func(holder string) bool
	Logger *slog.Logger
}

// Scheduler fires the jobs of a JobStore at their times. It sleeps until
// the earliest next fire (or the lease renewal, whichever is sooner) and
// is woken early by Wake, which the store calls after every job change.
type Scheduler struct {
	store  JobStore
	runner Runner
	clock  clock.Clock
	holder string
	ttl    time.Duration
	grace  time.Duration
	gone   func(holder string) bool
	log    *slog.Logger
	wake   chan struct{}
	sem    chan struct{}
	wg     sync.WaitGroup

	mu      sync.Mutex
	running map[string]bool // job names with a run in progress here
	runIDs  map[int64]bool  // their run ids
	held    bool

	// onIdle, when set (by tests), is called each time the loop has set
	// its timer and is about to sleep.
	onIdle func(wait time.Duration)
	// onRunsDone, when set (by tests), is called each time a job's runs
	// have ended and the job no longer counts as running.
	onRunsDone func()
}

// New returns a scheduler for opt.Store and registers it for the store's
// change notifications.
func New(opt Options) (*Scheduler, error) {
	if opt.Store == nil || opt.Runner == nil {
		return nil, errors.New("cron: scheduler needs a Store and a Runner")
	}
	s := &Scheduler{
		store: opt.Store, runner: opt.Runner, clock: clock.OrReal(opt.Clock), holder: opt.Holder,
		ttl: opt.LeaseTTL, grace: opt.ShutdownGrace, gone: opt.Gone, log: opt.Logger,
		wake:    make(chan struct{}, 1),
		running: map[string]bool{}, runIDs: map[int64]bool{},
	}
	if s.holder == "" {
		s.holder = defaultHolder()
	}
	if s.ttl <= 0 {
		s.ttl = 30 * time.Second
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	n := opt.MaxConcurrent
	if n <= 0 {
		n = 4
	}
	s.sem = make(chan struct{}, n)
	opt.Store.OnChange(s.Wake)
	return s, nil
}

// defaultHolder is unique per process: host, pid and a random suffix.
func defaultHolder() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Wake makes the loop re-read the jobs now instead of at its timer.
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Leading reports whether this scheduler held the lease at its last
// renewal: it is the one process of the home (or of the replicas sharing
// a database) that fires the jobs, and may do the work that goes with
// firing them, such as taking over the team runs of jobs whose process
// stopped.
func (s *Scheduler) Leading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// Run fires jobs until ctx ends, then gives the runs in progress the
// shutdown grace to finish, cancels those still going, waits for them and
// releases the lease.
func (s *Scheduler) Run(ctx context.Context) error {
	runs, cancelRuns := context.WithCancel(context.WithoutCancel(ctx))
	defer func() {
		s.drain(cancelRuns)
		if err := s.store.ReleaseLease(context.WithoutCancel(ctx), s.holder); err != nil {
			s.log.Warn("cron: release lease", "err", err)
		}
	}()
	for {
		wait := s.tick(ctx, runs, s.clock.Now())
		if ctx.Err() != nil {
			return nil
		}
		t := s.clock.NewTimer(wait)
		s.log.Debug("cron: sleeping", "wait_ms", wait.Milliseconds())
		if s.onIdle != nil {
			s.onIdle(wait)
		}
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C():
		case <-s.wake:
			t.Stop()
		}
	}
}

// tick renews the lease, fires what is due and returns how long to sleep.
// Runs get the runs context, which outlives ctx by the shutdown grace.
func (s *Scheduler) tick(ctx, runs context.Context, now time.Time) time.Duration {
	renew := s.ttl / 3
	lease, err := s.store.AcquireLease(ctx, s.holder, now, s.ttl)
	if err == nil && !lease.Held && lease.Holder != "" && s.gone != nil && s.gone(lease.Holder) {
		s.log.Info("cron: the scheduler holding the lease is gone; taking it over", "holder", lease.Holder)
		lease, err = s.store.TakeLease(ctx, s.holder, lease.Holder, now, s.ttl)
	}
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("cron: lease", "err", err)
		}
		return renew
	}
	s.mu.Lock()
	was := s.held
	s.held = lease.Held
	keep := make(map[int64]bool, len(s.runIDs))
	for id := range s.runIDs {
		keep[id] = true
	}
	s.mu.Unlock()
	if !lease.Held {
		// Another scheduler fires the jobs; look again when its lease
		// would lapse if it stopped renewing, or at the renewal interval.
		return max(min(lease.Until.Sub(now), renew), time.Millisecond)
	}
	if lease.Taken || !was {
		s.log.Info("cron: scheduler active", "holder", s.holder)
		if err := s.store.InterruptRuns(ctx, now, keep); err != nil {
			s.log.Error("cron: close interrupted runs", "err", err)
		}
	}
	due, err := s.store.Due(ctx, now)
	if err != nil {
		s.log.Error("cron: due jobs", "err", err)
		return renew
	}
	for _, j := range due {
		s.fire(ctx, runs, j, now)
	}
	wait := renew
	next, ok, err := s.store.Earliest(ctx)
	if err != nil {
		s.log.Error("cron: next fire", "err", err)
	} else if ok {
		wait = min(wait, next.Sub(now))
	}
	return max(wait, 0)
}

// fire claims one due job's fire and starts its runs.
func (s *Scheduler) fire(ctx, runs context.Context, j Job, now time.Time) {
	s.mu.Lock()
	running := s.running[j.Name]
	s.mu.Unlock()
	var p Plan
	sched, err := j.schedule(now)
	if err != nil {
		// The stored schedule no longer parses (say, the zone database
		// lost a zone): record it and stop rather than retry forever.
		p = Plan{Job: j.Name, Expect: j.NextRunAt, Disable: true,
			Records: []Record{{j.NextRunAt, StatusError, "not run, job disabled: " + err.Error()}}}
	} else {
		p = planFire(j, sched, now, running)
	}
	ids, err := s.store.Claim(ctx, s.holder, now, p)
	if errors.Is(err, ErrNotHolder) {
		s.log.Debug("cron: fire claimed elsewhere", "job", j.Name)
		return
	}
	if err != nil {
		s.log.Error("cron: claim fire", "job", j.Name, "err", err)
		return
	}
	for _, r := range p.Records {
		s.log.Warn("cron: fire not run", "job", j.Name, "scheduled_for", r.At, "status", r.Status, "why", r.Why)
	}
	if len(ids) == 0 {
		return
	}
	s.mu.Lock()
	s.running[j.Name] = true
	for _, id := range ids {
		s.runIDs[id] = true
	}
	s.mu.Unlock()
	s.wg.Add(1)
	go s.execute(ctx, runs, j, p.Start, ids)
}

// drain waits for the runs in progress, cancelling them once the
// shutdown grace has passed.
func (s *Scheduler) drain(cancelRuns context.CancelFunc) {
	defer cancelRuns()
	s.mu.Lock()
	busy := len(s.running)
	s.mu.Unlock()
	if busy == 0 {
		s.wg.Wait() // runs past their last step
		return
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	s.log.Info("cron: waiting for runs in progress", "runs", busy, "grace_ms", s.grace.Milliseconds())
	t := s.clock.NewTimer(s.grace)
	defer t.Stop()
	// The lease is still renewed, so no other scheduler takes over and
	// marks these runs interrupted while they finish.
	ctx := context.Background()
	for waiting := true; waiting; {
		renew := s.clock.NewTimer(s.ttl / 3)
		select {
		case <-done:
			renew.Stop()
			return
		case <-t.C():
			waiting = false
		case <-renew.C():
			if _, err := s.store.AcquireLease(ctx, s.holder, s.clock.Now(), s.ttl); err != nil {
				s.log.Warn("cron: lease", "err", err)
			}
		}
		renew.Stop()
	}
	s.log.Warn("cron: shutdown grace over, cancelling runs in progress")
	cancelRuns()
	<-done
}

// execute runs the claimed fires of one job in order, within the
// concurrency bound, and records each result. A fire still waiting for a
// slot when the scheduler stops is not started.
func (s *Scheduler) execute(ctx, runs context.Context, j Job, fires []time.Time, ids []int64) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.running, j.Name)
		for _, id := range ids {
			delete(s.runIDs, id)
		}
		s.mu.Unlock()
		s.log.Debug("cron: runs recorded; the job may fire again", "job", j.Name, "runs", len(fires))
		if s.onRunsDone != nil {
			s.onRunsDone()
		}
	}()
	for i, at := range fires {
		var res RunResult
		select {
		case s.sem <- struct{}{}:
			res = s.runOne(runs, j, at)
			<-s.sem
		case <-ctx.Done():
			res = RunResult{Err: fmt.Errorf("not started: %w", ctx.Err())}
		}
		if err := s.store.FinishRun(context.WithoutCancel(ctx), ids[i], res); err != nil {
			s.log.Error("cron: record run", "job", j.Name, "err", err)
		}
	}
}

// runOne calls the Runner, turning a panic into an error result.
func (s *Scheduler) runOne(ctx context.Context, j Job, at time.Time) (res RunResult) {
	start := s.clock.Now()
	defer func() {
		if r := recover(); r != nil {
			res = RunResult{Err: fmt.Errorf("run panicked: %v", r)}
		}
		lvl := slog.LevelInfo
		if res.Err != nil {
			lvl = slog.LevelError
		}
		s.log.Log(ctx, lvl, "cron: run finished", "job", j.Name, "scheduled_for", at,
			"session_id", res.SessionID, "duration_ms", s.clock.Now().Sub(start).Milliseconds(), "err", res.Err)
	}()
	return s.runner.Run(ctx, j, at)
}

// Next is a job's next fire, for printing at start-up.
type Next struct {
	Job  string
	At   time.Time // in the job's zone
	Zone string
}

// Upcoming lists the enabled jobs by next fire, times in each job's zone,
// so a zone mistake shows at start-up rather than at 09:00.
func (s *Scheduler) Upcoming(ctx context.Context) ([]Next, error) {
	jobs, err := s.store.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []Next
	for _, j := range jobs {
		if !j.Enabled || j.NextRunAt.IsZero() {
			continue
		}
		at := j.NextRunAt
		zone := j.Timezone
		if loc, err := LoadZone(j.Timezone, ""); err == nil {
			at = at.In(loc)
			zone = loc.String()
		}
		out = append(out, Next{Job: j.Name, At: at, Zone: zone})
	}
	sortNext(out)
	return out, nil
}
