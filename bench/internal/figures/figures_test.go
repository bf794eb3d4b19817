package figures

import (
	"testing"
	"time"
)

func TestPercentileAndMedian(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p50, p99, p100 := Percentile(ds, 50), Percentile(ds, 99), Percentile(ds, 100); p50 != 50*time.Millisecond || p99 != 99*time.Millisecond || p100 != 100*time.Millisecond {
		t.Errorf("p50 %s, p99 %s, p100 %s of 1..100 ms; want 50, 99, 100 ms", p50, p99, p100)
	}
	if ds[0] != 100*time.Millisecond {
		t.Errorf("Percentile sorted its argument: first is %s", ds[0])
	}
	if got := MS(Percentile(nil, 50)); got != "-" {
		t.Errorf("MS of no figure = %q, want -", got)
	}
	if m, x := Median([]float64{3, 1, 2}), Max([]float64{3, 1, 2}); m != 2 || x != 3 {
		t.Errorf("median %g, max %g of 3, 1, 2; want 2 and 3", m, x)
	}
}
