package llm

import (
	"encoding/json"
	"testing"
)

// Every Usage printed as JSON has total_tokens: the vendor's when it sent
// one, else input plus output; it reads back unchanged otherwise.
func TestUsageJSONHasTotal(t *testing.T) {
	for _, tc := range []struct {
		u    Usage
		want int
	}{
		{Usage{InputTokens: 120, OutputTokens: 30}, 150},
		{Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 40}, 40},
		{Usage{}, 0},
	} {
		b, err := json.Marshal(tc.u)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]int
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if v, ok := got["total_tokens"]; !ok || v != tc.want || got["input_tokens"] != tc.u.InputTokens || got["output_tokens"] != tc.u.OutputTokens {
			t.Errorf("%+v as JSON: %s; want total_tokens %d", tc.u, b, tc.want)
		}
	}
}
