package main

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/bench/internal/figures"
	"github.com/hermes-go/hermes/bench/internal/proc"
)

// under is phase A's reckoning: errors, and the times of the requests.
type under struct {
	n, errors          int
	firstErr           error
	firstByte, text    []time.Duration
	model              []time.Duration
	overhead           [2][]time.Duration // stateless, stateful
	unmatched, missing int                // answers the model never saw; whole answers without content
}

// countUnder works out phase A's figures. An error is anything but a
// whole 200 stream.
func countUnder(p *phase, m *model) under {
	var u under
	for _, o := range p.outcomes {
		u.n++
		if o.status != http.StatusOK || !o.complete {
			u.errors++
			if u.firstErr == nil {
				u.firstErr = fmt.Errorf("%s: status %d: %v", o.token, o.status, o.err)
			}
			continue
		}
		u.firstByte = append(u.firstByte, o.firstByte)
		if o.firstText == 0 {
			u.missing++
			continue
		}
		u.text = append(u.text, o.firstText)
		d, ok := m.of(o.token)
		if !ok {
			u.unmatched++
			continue
		}
		u.model = append(u.model, d)
		kind := 0
		if o.stateful {
			kind = 1
		}
		u.overhead[kind] = append(u.overhead[kind], o.firstText-d)
	}
	return u
}

// over is phase B's reckoning: statuses.
type over struct {
	whole, broken, limited, other4xx, server, failed int
}

func countOver(p *phase) over {
	var v over
	for _, o := range p.outcomes {
		switch {
		case o.status == http.StatusOK && o.complete:
			v.whole++
		case o.status == http.StatusOK:
			v.broken++
		case o.status == http.StatusTooManyRequests:
			v.limited++
		case o.status >= 500:
			v.server++
		case o.status >= 400:
			v.other4xx++
		default:
			v.failed++
		}
	}
	return v
}

// row prints a latency row: n, p50, p99, max.
func row(w io.Writer, name string, ds []time.Duration) {
	fmt.Fprintf(w, "%-46s %7d %8s %8s %8s\n", name, len(ds),
		figures.MS(figures.Percentile(ds, 50)), figures.MS(figures.Percentile(ds, 99)), figures.MS(figures.Percentile(ds, 100)))
}

// memRows prints the memory sampled during a phase and after it.
func memRows(w io.Writer, p *phase, settle time.Duration) {
	var rss, anon, file []float64
	for _, m := range p.during {
		rss, anon, file = append(rss, m.RSS), append(anon, m.Anon), append(file, m.File)
	}
	fmt.Fprintf(w, "%-46s %10s %10s %10s\n", "memory", "VmRSS MB", "anon MB", "file MB")
	fmt.Fprintf(w, "%-46s %10.1f %10.1f %10.1f\n", fmt.Sprintf("during, median of %d samples", len(p.during)), figures.Median(rss), figures.Median(anon), figures.Median(file))
	fmt.Fprintf(w, "%-46s %10.1f %10.1f %10.1f\n", "during, max", figures.Max(rss), figures.Max(anon), figures.Max(file))
	fmt.Fprintf(w, "%-46s %10.1f %10.1f %10.1f\n", fmt.Sprintf("after, %s idle", settle), p.after.RSS, p.after.Anon, p.after.File)
}

// memLine prints the median of idle measurements.
func memLine(w io.Writer, name string, ms []proc.Memory) {
	var rss, anon, file []float64
	for _, m := range ms {
		rss, anon, file = append(rss, m.RSS), append(anon, m.Anon), append(file, m.File)
	}
	fmt.Fprintf(w, "%-46s %10.1f %10.1f %10.1f   (VmRSS of each: %v)\n", name, figures.Median(rss), figures.Median(anon), figures.Median(file), rss)
}
