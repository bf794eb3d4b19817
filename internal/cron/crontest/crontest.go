// Package crontest is the conformance suite for cron.JobStore: every job
// store runs it, so the scheduler, the cronjob tool and the hermes cron
// commands behave the same on all of them.
//
// A store passes when it meets the contract of cron.JobStore and the
// choices this suite pins down where the interface is silent: times
// round-trip to the microsecond; a job's next fire is computed from the
// store's clock in the job's zone (UTC when none); unknown names are
// ErrNotFound; a claim is a compare-and-set that succeeds once per fire.
package crontest

import (
	"context"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/cron"
)

// Run runs the suite. open must return a new, empty store for each call,
// whose clock is clk and whose default zone is UTC, and release what it
// opened when the subtest ends (t.Cleanup).
func Run(t *testing.T, open func(t *testing.T, clk clock.Clock) cron.JobStore) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s cron.JobStore, clk *clock.Fake)
	}{
		{"CRUD", testCRUD},
		{"Sync", testSync},
		{"NotFound", testNotFound},
		{"OnChange", testOnChange},
		{"Runs", testRuns},
		{"History", testHistory},
		{"Lease", testLease},
		{"Holder", testHolder},
		{"DueAndEarliest", testDueAndEarliest},
		{"Claim", testClaim},
		{"ClaimOnce", testClaimOnce},
		{"InterruptRuns", testInterruptRuns},
		{"UnsafeText", testUnsafeText},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			tc.fn(t, open(t, clk), clk)
		})
	}
}

// t0 is the suite's starting instant: a Wednesday, 08:30 UTC.
var t0 = time.Date(2026, 12, 2, 8, 30, 0, 0, time.UTC)

// ctx is the context of one subtest.
func ctx(t *testing.T) context.Context { return t.Context() }

// create stores a tool job with a prompt and fails the test if it cannot.
func create(t *testing.T, s cron.JobStore, name, schedule string) cron.Job {
	t.Helper()
	j, err := s.Create(ctx(t), cron.Job{Name: name, Spec: cron.Spec{Schedule: schedule, Prompt: "p"}})
	if err != nil {
		t.Fatalf("Create(%s, %s): %v", name, schedule, err)
	}
	return j
}

// get returns a job and fails the test if it cannot.
func get(t *testing.T, s cron.JobStore, name string) cron.Job {
	t.Helper()
	j, err := s.Get(ctx(t), name)
	if err != nil {
		t.Fatalf("Get(%s): %v", name, err)
	}
	return j
}

// history returns a job's runs, newest first, and fails the test if it
// cannot.
func history(t *testing.T, s cron.JobStore, job string) []cron.Run {
	t.Helper()
	runs, err := s.History(ctx(t), job, 1000)
	if err != nil {
		t.Fatalf("History(%s): %v", job, err)
	}
	return runs
}

// declared is a job as the config file declares it.
func declared(name, schedule string) cron.Job {
	return cron.Job{Name: name, Enabled: true, Spec: cron.Spec{Schedule: schedule, Prompt: "p", Deliver: []string{"telegram"}}}
}
