package main

import (
	"fmt"
	"io"
	"time"

	"github.com/hermes-go/hermes/bench/internal/figures"
)

// print writes the run's figures as a table.
func (res *loadResult) print(w io.Writer, o loadOptions) {
	fmt.Fprintf(w, "hermes serve, %d Telegram users, %d messages over %s simulated (speed %g, %s wall), model thinks %s\n",
		o.users, res.sent, o.span, o.speed, res.wall.Round(time.Second), o.think)
	fmt.Fprintf(w, "\n%-40s %10s %10s\n", "memory", "VmRSS MB", "anon MB")
	fmt.Fprintf(w, "%-40s %10.1f %10.1f\n", fmt.Sprintf("during, median of %d samples", len(res.duringRSS)), median(res.duringRSS), median(res.duringAnon))
	fmt.Fprintf(w, "%-40s %10.1f %10.1f\n", "during, max", maxOf(res.duringRSS), maxOf(res.duringAnon))
	fmt.Fprintf(w, "%-40s %10.1f %10.1f\n", fmt.Sprintf("after, all answered + %s idle", o.idle), res.afterRSS, res.afterAnon)
	fmt.Fprintf(w, "\n%-40s %10d\n", "messages sent", res.sent)
	fmt.Fprintf(w, "%-40s %10d\n", "answered once, whole", res.answered)
	fmt.Fprintf(w, "%-40s %10d\n", "lost (no reply)", res.lost)
	fmt.Fprintf(w, "%-40s %10d\n", "doubled (replied twice)", res.doubled)
	fmt.Fprintf(w, "%-40s %10d\n", "incomplete (reply never whole)", res.incomplete)
	fmt.Fprintf(w, "%-40s %10d\n", "updates redelivered", res.redelivered)
	fmt.Fprintf(w, "%-40s %10d\n", "model requests without a message", res.aux)
	fmt.Fprintf(w, "\n%-40s %8s %8s %8s %8s\n", "gateway overhead per message, ms", "n", "p50", "p99", "max")
	var all []time.Duration
	for c := range classes {
		d := res.overhead[c]
		if c != classFlood {
			all = append(all, d...)
		}
		fmt.Fprintf(w, "%-40s %8d %8s %8s %8s\n", c, len(d), ms(pct(d, 50)), ms(pct(d, 99)), ms(pct(d, 100)))
	}
	fmt.Fprintf(w, "%-40s %8d %8s %8s %8s\n", "all but the flooded chats", len(all), ms(pct(all, 50)), ms(pct(all, 99)), ms(pct(all, 100)))
	fmt.Fprintf(w, "%-40s %8d %8s %8s %8s\n", "  of which before the model was asked", len(res.before), ms(pct(res.before, 50)), ms(pct(res.before, 99)), ms(pct(res.before, 100)))
	fmt.Fprintf(w, "\n%-40s %10.2f\n", "serve's CPU per message, ms", float64(res.cpu)/float64(time.Millisecond)/float64(max(res.sent, 1)))
	fmt.Fprintf(w, "%-40s %10.1f\n", "state.db with its WAL at the end, MB", res.dbMB)
	fmt.Fprintln(w)
}

func pct(ds []time.Duration, p int) time.Duration { return figures.Percentile(ds, p) }

func ms(d time.Duration) string { return figures.MS(d) }

func median(xs []float64) float64 { return figures.Median(xs) }

func maxOf(xs []float64) float64 { return figures.Max(xs) }
