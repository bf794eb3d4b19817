// Package figures holds the few statistics the bench programs print:
// percentiles of latencies and medians of memory samples.
package figures

import (
	"fmt"
	"slices"
	"time"
)

// Percentile returns the p-th percentile of ds by nearest rank, and -1
// when ds is empty, which MS prints as "-".
func Percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return -1
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(i-1, 0)]
}

// MS formats d in milliseconds with one decimal, "-" for a negative d
// (no figure).
func MS(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
}

// Median returns the middle of xs (the upper one of an even count), 0
// for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// Max returns the largest of xs, 0 for none.
func Max(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return slices.Max(xs)
}
