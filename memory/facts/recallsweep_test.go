package facts

import (
	"context"
	"math"
	"os"
	"testing"
)

// signals are what recall can go on for one fact and one message: the
// word match (BM25 score and coverage) and the vectors' cosine, with its
// standing among the cosines of every fact for the message (z).
type signals struct {
	coverage, score, cos, z float64
	words                   bool
}

// messageSignals computes the signals of every fact for every message.
func messageSignals(t *testing.T, s *Store, set recallSet, ids map[int64]string, vecs map[int64][]float32) [][]map[string]signals {
	t.Helper()
	ctx := context.Background()
	out := make([][]map[string]signals, len(set.Messages))
	for mi, m := range set.Messages {
		sig := map[string]signals{}
		if terms := parseTerms(m.Text, 2); len(terms) > 0 {
			h, err := s.collect(ctx, terms)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range h.rank() {
				sig[ids[r.id]] = signals{coverage: r.coverage, score: r.score, words: true}
			}
		}
		qv, _ := testEmbed(ctx, []string{m.Text})
		var sum, sq float64
		coss := map[int64]float64{}
		for id, v := range vecs {
			c := cosine(qv[0], v)
			coss[id] = c
			sum += c
			sq += c * c
		}
		n := float64(len(vecs))
		mean := sum / n
		sd := math.Sqrt(max(sq/n-mean*mean, 1e-9))
		for id, c := range coss {
			x := sig[ids[id]]
			x.cos, x.z = c, (c-mean)/sd
			sig[ids[id]] = x
		}
		out[mi] = []map[string]signals{sig}
	}
	return out
}

// TestRecallSweep prints recall@5 and false recall over a grid of floors
// for words alone, vectors alone and either, to choose the floors from.
// It runs only with HERMES_RECALL_SWEEP=1.
func TestRecallSweep(t *testing.T) {
	if os.Getenv("HERMES_RECALL_SWEEP") == "" {
		t.Skip("set HERMES_RECALL_SWEEP=1 to print the sweep")
	}
	set := loadRecallSet(t)
	s := openTemp(t, "sqlite")
	ctx := context.Background()
	var fs []Fact
	for _, f := range set.Facts {
		fs = append(fs, Fact{Kind: Kind(f.Kind), Subject: f.Subject, Content: f.Content})
	}
	mustAdd(t, s, fs...)
	stored, _ := s.List(ctx, 0)
	ids := map[int64]string{}
	vecs := map[int64][]float32{}
	for _, f := range stored {
		for _, sf := range set.Facts {
			if sf.Content == f.Content {
				ids[f.ID] = sf.ID
			}
		}
		v, _ := testEmbed(ctx, []string{embedText(f)})
		vecs[f.ID] = v[0]
	}
	sigs := messageSignals(t, s, set, ids, vecs)
	eval := func(pass func(signals) bool, order func(signals) float64) (float64, float64) {
		pairs, found, unrel, falseHits := 0, 0, 0, 0
		for mi, m := range set.Messages {
			sig := sigs[mi][0]
			type cand struct {
				id string
				o  float64
			}
			var cs []cand
			for id, x := range sig {
				if pass(x) {
					cs = append(cs, cand{id, order(x)})
				}
			}
			// top 5 by order
			for i := range cs {
				for j := i + 1; j < len(cs); j++ {
					if cs[j].o > cs[i].o {
						cs[i], cs[j] = cs[j], cs[i]
					}
				}
			}
			if len(cs) > 5 {
				cs = cs[:5]
			}
			got := map[string]bool{}
			for _, c := range cs {
				got[c.id] = true
			}
			if len(m.Recall) == 0 {
				unrel++
				if len(cs) > 0 {
					falseHits++
				}
				continue
			}
			for _, id := range m.Recall {
				pairs++
				if got[id] {
					found++
				}
			}
		}
		return float64(found) / float64(pairs), float64(falseHits) / float64(unrel)
	}
	for _, c := range []float64{0.3, 0.35, 0.4, 0.45, 0.5, 0.6} {
		r, f := eval(func(x signals) bool { return x.words && x.coverage >= c }, func(x signals) float64 { return x.coverage })
		t.Logf("words coverage>=%.2f: recall %.3f false %.3f", c, r, f)
	}
	for _, c := range []float64{2, 3, 4, 5, 6} {
		r, f := eval(func(x signals) bool { return x.words && x.score >= c }, func(x signals) float64 { return x.score })
		t.Logf("words score>=%.1f: recall %.3f false %.3f", c, r, f)
	}
	for _, z := range []float64{2, 2.5, 3, 3.5, 4} {
		r, f := eval(func(x signals) bool { return x.z >= z && x.cos > 0 }, func(x signals) float64 { return x.cos })
		t.Logf("vectors z>=%.1f: recall %.3f false %.3f", z, r, f)
	}
	for _, c := range []float64{0.3, 0.4, 0.5, 0.6} {
		r, f := eval(func(x signals) bool { return x.cos >= c }, func(x signals) float64 { return x.cos })
		t.Logf("vectors cos>=%.1f: recall %.3f false %.3f", c, r, f)
	}
	for _, c := range []float64{0.4, 0.45, 0.5} {
		for _, z := range []float64{3, 3.5, 4} {
			r, f := eval(func(x signals) bool { return (x.words && x.coverage >= c) || (x.z >= z && x.cos > 0) },
				func(x signals) float64 { return x.coverage + x.z/4 })
			t.Logf("either coverage>=%.2f or z>=%.1f: recall %.3f false %.3f", c, z, r, f)
		}
	}
}
