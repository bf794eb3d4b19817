package cron

import (
	"context"
	"errors"
	"time"
)

// JobStore is what hermes needs of a job store: the cronjob tool and the
// hermes cron commands manage jobs and read their runs; the Scheduler
// takes the lease, finds due jobs and claims their fires. Store keeps
// them in state.db; a store shared by several machines (PostgreSQL)
// implements the same contract, and cron/crontest is the suite every
// implementation passes. Times the store fills in come from its own
// clock; times passed in (now, scheduledFor) are the caller's.
type JobStore interface {
	// Create stores a new job (source tool unless set), enabled, with its
	// first fire after now; an invalid job, a taken name or a one-shot
	// already past is an error naming the job.
	Create(ctx context.Context, j Job) (Job, error)
	// Get returns the named job, or an error wrapping ErrNotFound.
	Get(ctx context.Context, name string) (Job, error)
	// List returns every job by name.
	List(ctx context.Context) ([]Job, error)
	// Update replaces the spec of a job created at run time and
	// reschedules it from now; a config job is an error.
	Update(ctx context.Context, name string, spec Spec) (Job, error)
	// Pause stops a job from firing (no next fire) until Resume, which
	// schedules its next fire after now.
	Pause(ctx context.Context, name string) error
	Resume(ctx context.Context, name string) error
	// Remove deletes a job created at run time; its runs stay. A config
	// job is an error.
	Remove(ctx context.Context, name string) error
	// Sync makes the stored config jobs match the config file's list
	// (see Store.Sync).
	Sync(ctx context.Context, jobs []Job) (SyncResult, error)
	// OnChange registers f to be called after every change to the jobs
	// made through this store.
	OnChange(f func())

	// StartRun records a run of job for scheduledFor beginning now and
	// marks the job running; FinishRun records its result (output kept
	// to MaxOutput), clears the mark and, for a "continue" job, keeps
	// the session to carry on.
	StartRun(ctx context.Context, job string, scheduledFor time.Time) (int64, error)
	FinishRun(ctx context.Context, id int64, r RunResult) error
	// History returns the newest runs of job, newest first; limit <= 0
	// means 20.
	History(ctx context.Context, job string, limit int) ([]Run, error)

	// AcquireLease takes or renews the scheduler lease for holder at now
	// for ttl. A lease is free when nobody holds it, its holder is
	// holder, or it expired at or before now.
	AcquireLease(ctx context.Context, holder string, now time.Time, ttl time.Duration) (Lease, error)
	// TakeLease takes the lease for holder from from, whose process is
	// known to be gone, before it lapses; it does nothing (and reports
	// the lease not held) when from no longer holds it.
	TakeLease(ctx context.Context, holder, from string, now time.Time, ttl time.Duration) (Lease, error)
	// ReleaseLease gives the lease up if holder holds it.
	ReleaseLease(ctx context.Context, holder string) error
	// Holder is who holds the lease and until when; ok is false when
	// nobody does (none running, or the last one's lease has lapsed).
	Holder(ctx context.Context) (holder string, until time.Time, ok bool, err error)
	// InterruptRuns closes every run still "running", except those in
	// keep, as failed (interrupted), and clears their jobs' running
	// marks.
	InterruptRuns(ctx context.Context, now time.Time, keep map[int64]bool) error
	// Due returns the enabled jobs whose next fire is at or before now,
	// soonest first.
	Due(ctx context.Context, now time.Time) ([]Job, error)
	// Earliest is the soonest next fire of any enabled job; false when
	// there is none.
	Earliest(ctx context.Context) (time.Time, bool, error)
	// Claim applies p in one transaction if holder holds the lease at now
	// and the job is enabled with its next fire still p.Expect, and
	// returns the ids of the runs it started, one per p.Start, in order.
	// Otherwise it changes nothing and returns ErrNotHolder.
	Claim(ctx context.Context, holder string, now time.Time, p Plan) ([]int64, error)
}

// ErrNotHolder is Claim's answer when the caller no longer holds the
// lease or another scheduler already claimed the fire.
var ErrNotHolder = errors.New("fire claimed elsewhere")

// Lease is the outcome of AcquireLease.
type Lease struct {
	// Held says whether the caller holds the lease now.
	Held bool
	// Taken says the caller holds it and did not just before.
	Taken bool
	// Until is when the lease lapses unless renewed, whoever holds it.
	Until time.Time
	// Holder is who holds it.
	Holder string
}

// Plan is what the scheduler decided for one due job, applied by Claim.
type Plan struct {
	Job     string
	Expect  time.Time   // the next fire the plan was made from
	Next    time.Time   // the new next fire; zero for none
	Disable bool        // a spent one-shot: the job is disabled
	Records []Record    // fires that will not run
	Start   []time.Time // fires to run now, in order
}

// Record is a fire that will not run, with its status (missed, skipped,
// error) and the reason history shows.
type Record struct {
	At     time.Time
	Status string
	Why    string
}
