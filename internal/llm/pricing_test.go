package llm

import (
	"math"
	"testing"
)

func TestPriceOf(t *testing.T) {
	tests := []struct {
		model     string
		overrides map[string]Price
		wantIn    float64
		known     bool
	}{
		{"gpt-4o", nil, 2.50, true},
		{"gpt-4o-mini-2024-07-18", nil, 0.15, true}, // longest match
		{"openai/gpt-4.1-mini", nil, 0.40, true},
		{"gpt-5", nil, 1.25, true},
		{"gpt-5-mini", nil, 0.25, true},
		{"o3", nil, 2.00, true},
		{"o4-mini", nil, 1.10, true},
		{"claude-sonnet-4-5-20250929", nil, 3.00, true},
		{"claude-opus-4-1-20250805", nil, 15.00, true},
		{"claude-3-5-haiku-latest", nil, 0.80, true},
		{"gemini-2.5-flash", nil, 0.30, true},
		{"gemini-2.5-pro", nil, 1.25, true},
		{"deepseek-reasoner", nil, 0.28, true},
		{"qwen-max", nil, 1.60, true},
		{"QWEN-TURBO", nil, 0.05, true},
		{"my-local-model", nil, 0, false},
		{"my-local-model", map[string]Price{"My-Local": {InputPerM: 0.01}}, 0.01, true},
		{"gpt-4o", map[string]Price{"gpt-4o": {InputPerM: 9}}, 9, true}, // override wins over the table
		{"gpt-4o-mini", map[string]Price{"gpt-4o": {InputPerM: 9}}, 9, true},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			p, known := PriceOf(tt.model, tt.overrides)
			if p.InputPerM != tt.wantIn || known != tt.known {
				t.Errorf("PriceOf(%q) = %+v, %v; want input %v, %v", tt.model, p, known, tt.wantIn, tt.known)
			}
			if known && p.OutputPerM == 0 && tt.overrides == nil {
				t.Errorf("table price of %q has no output price", tt.model)
			}
		})
	}
}

func TestCost(t *testing.T) {
	sonnet := Price{InputPerM: 3, OutputPerM: 15, CacheReadPerM: 0.30, CacheWritePerM: 3.75}
	tests := []struct {
		name string
		p    Price
		u    Usage
		want float64
	}{
		{"plain", sonnet, Usage{InputTokens: 1_000_000, OutputTokens: 100_000}, 3 + 1.5},
		{"cache read and write are part of input", sonnet,
			Usage{InputTokens: 100_000, CacheReadTokens: 80_000, CacheWriteTokens: 10_000, OutputTokens: 2_000},
			(10_000*3 + 80_000*0.30 + 10_000*3.75 + 2_000*15) / 1e6},
		{"reasoning is inside output, not added", Price{InputPerM: 2, OutputPerM: 8},
			Usage{InputTokens: 1_000, OutputTokens: 5_000, ReasoningTokens: 4_000, TotalTokens: 6_000},
			(1_000*2 + 5_000*8) / 1e6},
		{"hidden thinking counted only in the total", Price{InputPerM: 0.30, OutputPerM: 2.50},
			Usage{InputTokens: 1_000, OutputTokens: 200, TotalTokens: 3_200},
			(1_000*0.30 + 2_200*2.50) / 1e6}, // 200 visible + 2,000 hidden
		{"unpriced cache read bills at input", Price{InputPerM: 1, OutputPerM: 2},
			Usage{InputTokens: 1_000, CacheReadTokens: 600}, 1_000 * 1 / 1e6},
		{"inconsistent counts never go negative", sonnet,
			Usage{InputTokens: 10, CacheReadTokens: 100}, 100 * 0.30 / 1e6},
		{"zero usage", sonnet, Usage{}, 0},
		{"unknown model price", Price{}, Usage{InputTokens: 1_000, OutputTokens: 1_000}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cost(tt.p, tt.u); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Cost = %.10f, want %.10f", got, tt.want)
			}
		})
	}
}

func TestCostOfTablePrice(t *testing.T) {
	p, ok := PriceOf("gpt-4o-mini", nil)
	if !ok {
		t.Fatal("gpt-4o-mini has no price")
	}
	// 10K prompt tokens of which 8K cached, 500 output.
	got := Cost(p, Usage{InputTokens: 10_000, CacheReadTokens: 8_000, OutputTokens: 500})
	want := (2_000*0.15 + 8_000*0.075 + 500*0.60) / 1e6
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("Cost = %v, want %v", got, want)
	}
}
