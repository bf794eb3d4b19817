package kb

import (
	"context"
	"fmt"
	"testing"
)

// TestParse: words are lower-cased and de-duplicated, CJK runs are cut
// from the words beside them and at CJK punctuation, and FTS5 syntax is
// only separators.
func TestParse(t *testing.T) {
	for q, want := range map[string]string{
		`Deploy the "gateway" NEAR(x) -y*`: `[deploy the gateway near x y] []`,
		`迁移脚本，运行 API网关`:                    `[api] [迁移脚本 运行 网关]`,
		`Gateway gateway GATEWAY`:          `[gateway] []`,
		` ?! -- `:                          `[] []`,
	} {
		p := parse(q)
		if got := fmt.Sprint(p.words, " ", p.cjk); got != want {
			t.Errorf("parse(%q) = %s, want %s", q, got, want)
		}
	}
}

// TestWordMatch: in a large index, words most chunks hold are dropped
// while a rarer one remains, all of them are needed when none does, and
// a small index keeps every word; every word is quoted.
func TestWordMatch(t *testing.T) {
	df := func(_ context.Context, w string) (int, error) {
		return map[string]int{"the": 90_000, "deploy": 20_000, "gateway": 300}[w], nil
	}
	for _, tt := range []struct {
		q     string
		total int
		want  string
	}{
		{"the deploy gateway", 100_000, `"gateway"`},
		{"the deploy", 100_000, `"the" AND "deploy"`},
		{"café gateway", 100_000, `"café" OR "gateway"`},
		{"the deploy gateway", 1000, `"the" OR "deploy" OR "gateway"`},
	} {
		got, err := parse(tt.q).wordMatch(context.Background(), df, tt.total)
		if err != nil || got != tt.want {
			t.Errorf("%q over %d chunks: %s, %v; want %s", tt.q, tt.total, got, err, tt.want)
		}
	}
}
