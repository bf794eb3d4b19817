// Package doctor runs named health checks of a hermes home and reports
// each as ok, warn or fail with a one-line finding and, for a problem, the
// command that fixes it. People paste the report into bug reports, so
// every string in it passes through a redactor before it is shown.
//
// The checks themselves are plain functions: those that only look at
// files live here, those that need hermes assembled live in app.
package doctor

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Status is how a check came out.
type Status string

// The statuses, from good to bad: a warning is worth reading but does not
// stop hermes from working; a failure does.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Result is one finding: what was checked, how it came out, what was
// seen and, unless it is ok, the command that fixes it.
type Result struct {
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Finding string `json:"finding"`
	Fix     string `json:"fix,omitempty"`
}

// Check is one named check. Run may report several results (one per
// provider, server or job); it must return when ctx ends.
type Check struct {
	Name string
	// Timeout bounds Run; zero is DefaultTimeout.
	Timeout time.Duration
	Run     func(ctx context.Context) []Result
}

// DefaultTimeout bounds a check that names no timeout of its own.
const DefaultTimeout = 10 * time.Second

// Report is every result, in the order of the checks.
type Report struct {
	Status Status   `json:"status"`
	Checks []Result `json:"checks"`
}

// Failed reports whether any check failed.
func (r Report) Failed() bool { return r.Status == Fail }

// Run runs the checks in parallel, each under its timeout, and passes
// every string of every result through redact (nil leaves them as they
// are), then escapes the control characters in them. A check that does not return in time is reported as failed;
// its goroutine is abandoned to finish on its own.
func Run(ctx context.Context, checks []Check, redact func(string) string) Report {
	results := make([][]Result, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runOne(ctx, c)
		}()
	}
	wg.Wait()
	rep := Report{Status: OK, Checks: []Result{}}
	for _, rs := range results {
		for _, r := range rs {
			if redact != nil {
				r.Name, r.Finding, r.Fix = redact(r.Name), redact(r.Finding), redact(r.Fix)
			}
			r.Name, r.Finding, r.Fix = clean(r.Name), clean(r.Finding), clean(r.Fix)
			rep.Status = worse(rep.Status, r.Status)
			rep.Checks = append(rep.Checks, r)
		}
	}
	return rep
}

// runOne runs c under its timeout, turning a panic or an overrun into a
// failed result so that one broken check never hides the others.
func runOne(ctx context.Context, c Check) []Result {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan []Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- []Result{{Name: c.Name, Status: Fail, Finding: fmt.Sprintf("the check crashed: %v", p)}}
			}
		}()
		done <- c.Run(ctx)
	}()
	select {
	case rs := <-done:
		return rs
	case <-ctx.Done():
		return []Result{{Name: c.Name, Status: Fail, Finding: fmt.Sprintf("no answer within %s", timeout)}}
	}
}

// worse returns the worse of two statuses.
func worse(a, b Status) Status {
	order := []Status{OK, Warn, Fail}
	return order[max(slices.Index(order, a), slices.Index(order, b))]
}

// Okf is an ok result.
func Okf(name, format string, args ...any) Result {
	return Result{Name: name, Status: OK, Finding: fmt.Sprintf(format, args...)}
}

// Problem is a warn or fail result with its fix.
func Problem(name string, s Status, fix, format string, args ...any) Result {
	return Result{Name: name, Status: s, Finding: fmt.Sprintf(format, args...), Fix: fix}
}
