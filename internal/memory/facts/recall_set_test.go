package facts_test

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/memory/facts/recalltest"
)

// TestRecallSet measures recall on the recall set by words alone, by
// llmtest's vectors alone and by both, and holds each to what was
// measured, so a change that recalls less, or recalls for unrelated
// messages more often, fails. llmtest's vectors are hashed words: they
// know no synonym and no other language, so they test the mechanics of
// the vector path and of the fusion, not what a model brings (go run
// ./bench/recall measures a model).
func TestRecallSet(t *testing.T) {
	set, err := recalltest.Load("testdata/recall/set.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name                string
		opt                 facts.Options
		minRecall, maxFalse float64
	}{
		// Measured: recall@5 0.276, false recall 0.033 (word coverage,
		// light stemming, no Chinese function-character pieces).
		{"words alone", facts.Options{Recall: facts.RecallWords, Embed: recalltest.Embed}, 0.27, 0.034},
		// Hashed words never beat the anchors by the default margin (0.35):
		// recall 0. At 0.2, measured: 0.020, 0.017 (3 direct questions and
		// a paraphrase found, one unrelated message recalls).
		{"llmtest vectors alone at 0.2", facts.Options{Recall: facts.RecallVectors, Embed: recalltest.Embed, MinMargin: 0.2}, 0.019, 0.02},
		// Measured: 0.276, 0.033: the vectors cost the words nothing.
		{"words and llmtest vectors", facts.Options{Embed: recalltest.Embed}, 0.27, 0.034},
	} {
		sc, err := recalltest.Run(ctx, facts.New(dbtest.Open(t, "sqlite"), tc.opt), set)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", tc.name, sc)
		if sc.RecallAt5() < tc.minRecall || sc.FalseRecall() > tc.maxFalse {
			t.Errorf("%s: %s; want recall@5 at least %.3f and false recall at most %.3f", tc.name, sc, tc.minRecall, tc.maxFalse)
		}
	}
}
