package compress

import "testing"

func TestShouldCompress(t *testing.T) {
	tests := []struct {
		name                    string
		estimate, window, reply int
		threshold               float64
		want                    bool
	}{
		{"under half of usable", 40_000, 100_000, 10_000, 0.5, false},
		{"exactly at the limit", 45_000, 100_000, 10_000, 0.5, false},
		{"just past half of usable", 45_001, 100_000, 10_000, 0.5, true},
		{"reply budget counts against the window", 48_000, 100_000, 10_000, 0.5, true},
		{"no reply budget", 48_000, 100_000, 0, 0.5, false},
		{"zero threshold means the default", 50_001, 100_000, 0, 0, true},
		{"higher threshold", 80_000, 100_000, 0, 0.85, false},
		{"reply budget larger than window", 1, 1000, 2000, 0.5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShouldCompress(tt.estimate, tt.window, tt.reply, tt.threshold); got != tt.want {
				t.Errorf("ShouldCompress(%d, %d, %d, %v) = %v, want %v", tt.estimate, tt.window, tt.reply, tt.threshold, got, tt.want)
			}
		})
	}
}

func TestTailBudget(t *testing.T) {
	tests := []struct {
		window           int
		threshold, ratio float64
		want             int
	}{
		{200_000, 0.5, 0.2, 20_000},
		{128_000, 0.5, 0.2, 12_800},
		{8_000, 0.5, 0.2, 800},
		{100_000, 0.85, 0.5, 42_500},
	}
	for _, tt := range tests {
		if got := TailBudget(tt.window, tt.threshold, tt.ratio); got != tt.want {
			t.Errorf("TailBudget(%d, %v, %v) = %d, want %d", tt.window, tt.threshold, tt.ratio, got, tt.want)
		}
	}
}

func TestSummaryBudget(t *testing.T) {
	tests := []struct {
		name            string
		content, window int
		want            int
	}{
		{"small content gets the minimum", 1_000, 200_000, 2_000},
		{"20% of content", 30_000, 200_000, 6_000},
		{"capped by 5% of window", 100_000, 128_000, 6_400},
		{"capped at 12000", 200_000, 1_000_000, 12_000},
		{"5% of a small window is below the minimum", 50_000, 16_000, 2_000},
		{"zero content", 0, 200_000, 2_000},
		{"just under the 5% cap", 49_000, 200_000, 9_800},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SummaryBudget(tt.content, tt.window); got != tt.want {
				t.Errorf("SummaryBudget(%d, %d) = %d, want %d", tt.content, tt.window, got, tt.want)
			}
		})
	}
}

func TestUsable(t *testing.T) {
	if got := Usable(100, 30); got != 70 {
		t.Errorf("Usable(100, 30) = %d, want 70", got)
	}
	if got := Usable(100, 300); got != 0 {
		t.Errorf("Usable(100, 300) = %d, want 0", got)
	}
}
