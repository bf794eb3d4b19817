package tool

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
)

// class is how a call may share time with the other calls of its batch.
type class uint8

const (
	// classBarrier calls run alone: everything before them finishes first
	// and nothing after them starts until they finish. A tool that is
	// neither read-only nor path-scoped may touch anything.
	classBarrier class = iota
	// classParallel calls (ParallelSafe tools without a path) run beside
	// anything but a barrier.
	classParallel
	// classPath calls run beside everything but barriers and earlier
	// path-scoped calls whose path overlaps theirs, unless both only read.
	classPath
)

// classify decides a call's class. A path-scoped call whose path cannot be
// read from its arguments, or starts with "~" (which only the tool
// expands), cannot be compared with others and becomes a barrier.
func classify(spec Spec, args json.RawMessage, workdir string) (class, string) {
	if spec.PathArg == "" {
		if spec.ParallelSafe {
			return classParallel, ""
		}
		return classBarrier, ""
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return classBarrier, ""
	}
	var p string
	if json.Unmarshal(fields[spec.PathArg], &p) != nil || p == "" || strings.HasPrefix(p, "~") {
		return classBarrier, ""
	}
	if !filepath.IsAbs(p) && workdir != "" {
		p = filepath.Join(workdir, p)
	}
	return classPath, filepath.Clean(p)
}

// overlaps reports whether two cleaned paths are the same or one contains
// the other.
func overlaps(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if a == string(filepath.Separator) {
		return filepath.IsAbs(b)
	}
	return strings.HasPrefix(b, a) && b[len(a)] == filepath.Separator
}

// plan records, for each call that will run, the earlier calls it must
// wait for: a barrier waits for everything since the previous barrier (and
// that barrier), a parallel call for the last barrier, and a path call for
// the last barrier and every earlier conflicting path call since it.
func plan(jobs []*job) {
	lastBarrier := -1
	var since []int
	for i, j := range jobs {
		if j.early != nil {
			continue
		}
		var deps []int
		if lastBarrier >= 0 {
			deps = append(deps, lastBarrier)
		}
		switch j.class {
		case classBarrier:
			deps = append(deps, since...)
			lastBarrier, since = i, nil
		case classPath:
			for _, k := range since {
				o := jobs[k]
				readOnly := j.entry.spec.ParallelSafe && o.entry.spec.ParallelSafe
				if o.class == classPath && !readOnly && overlaps(o.path, j.path) {
					deps = append(deps, k)
				}
			}
			since = append(since, i)
		default:
			since = append(since, i)
		}
		j.deps = deps
	}
}

// schedule runs the jobs as plan allows, at most MaxParallel at a time,
// starting ready jobs in call order. It answers calls that fail early at
// once and returns when every call has an outcome. When ctx ends, calls
// not yet started are answered "interrupted" and running ones, whose
// attempts return as soon as ctx ends, are awaited.
func (d *Dispatcher) schedule(ctx context.Context, jobs []*job, outs []Outcome, o *lockedObserver) {
	plan(jobs)
	pending := make([]int, 0, len(jobs))
	for i, j := range jobs {
		if j.early != nil {
			outs[i] = d.finishEarly(ctx, j, *j.early, o)
		} else {
			pending = append(pending, i)
		}
	}
	if len(pending) == 1 {
		// A single call needs no scheduling goroutines.
		outs[pending[0]] = d.execute(ctx, jobs[pending[0]], o)
		return
	}
	limit := d.MaxParallel
	if limit <= 0 {
		limit = DefaultMaxParallel
	}
	done := make([]bool, len(jobs))
	finished := make(chan int, len(jobs))
	running := 0
	for len(pending) > 0 || running > 0 {
		if ctx.Err() != nil {
			for _, i := range pending {
				outs[i] = d.finishEarly(ctx, jobs[i], interrupted(jobs[i].name), o)
			}
			for ; running > 0; running-- {
				<-finished
			}
			return
		}
		pending = d.startReady(ctx, jobs, pending, done, &running, limit, outs, finished, o)
		if running == 0 {
			// Unreachable while dependencies point backwards (the first
			// pending job then has all of its own done); run that job
			// rather than spin if it ever happens.
			i := pending[0]
			pending = pending[1:]
			outs[i] = d.execute(ctx, jobs[i], o)
			done[i] = true
			continue
		}
		select {
		case i := <-finished:
			done[i] = true
			running--
		case <-ctx.Done():
		}
	}
}

// startReady starts, in call order, every pending job whose dependencies
// are done while workers are free, and returns the jobs still pending.
func (d *Dispatcher) startReady(ctx context.Context, jobs []*job, pending []int, done []bool, running *int,
	limit int, outs []Outcome, finished chan<- int, o *lockedObserver) []int {
	rest := pending[:0]
	for _, i := range pending {
		if *running >= limit || !depsDone(jobs[i].deps, done) {
			rest = append(rest, i)
			continue
		}
		*running++
		go func(j *job) {
			outs[j.index] = d.execute(ctx, j, o)
			finished <- j.index
		}(jobs[i])
	}
	return rest
}

func depsDone(deps []int, done []bool) bool {
	for _, k := range deps {
		if !done[k] {
			return false
		}
	}
	return true
}
