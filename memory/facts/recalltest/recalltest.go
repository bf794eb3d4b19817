// Package recalltest measures long-term memory's recall on a set of facts
// and first messages (memory/facts/testdata/recall/set.json): recall@5,
// the share of the (message, fact) pairs a good memory recalls that
// facts.Recall returned among its five, and false recall, the share of
// unrelated messages for which it returned anything. The facts tests hold
// recall to what was measured, and bench/recall measures it with a real
// embedding model.
package recalltest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/memory/facts"
)

// Set is a recall set: facts, and first messages with the facts each
// should recall (none for an unrelated one).
type Set struct {
	Facts []struct {
		ID, Kind, Subject, Content string
	}
	Messages []struct {
		Text, Type, Lang string
		Recall           []string
	}
}

// Load reads a set from path.
func Load(path string) (Set, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Set{}, err
	}
	var set Set
	if err := json.Unmarshal(b, &set); err != nil {
		return Set{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(set.Facts) == 0 || len(set.Messages) == 0 {
		return Set{}, fmt.Errorf("%s: no facts or no messages", path)
	}
	return set, nil
}

// Score is how a recall did on a set.
type Score struct {
	Pairs, Found         int
	Unrelated, FalseHits int
	// ByType holds, per kind of message, the pairs found and to find.
	ByType map[string][2]int
}

// RecallAt5 is the share of the pairs to recall that were.
func (s Score) RecallAt5() float64 { return float64(s.Found) / float64(max(s.Pairs, 1)) }

// FalseRecall is the share of unrelated messages that recalled anything.
func (s Score) FalseRecall() float64 { return float64(s.FalseHits) / float64(max(s.Unrelated, 1)) }

func (s Score) String() string {
	types := make([]string, 0, len(s.ByType))
	for k := range s.ByType {
		types = append(types, k)
	}
	sort.Strings(types)
	var b strings.Builder
	fmt.Fprintf(&b, "recall@5 %.3f (%d/%d), false recall %.3f (%d/%d);", s.RecallAt5(), s.Found, s.Pairs, s.FalseRecall(), s.FalseHits, s.Unrelated)
	for _, k := range types {
		v := s.ByType[k]
		fmt.Fprintf(&b, " %s %d/%d", k, v[0], v[1])
	}
	return b.String()
}

// Run stores the set's facts in st, which must be empty, recalls for
// each message, and scores what came back.
func Run(ctx context.Context, st *facts.Store, set Set) (Score, error) {
	byContent := map[string]string{}
	fs := make([]facts.Fact, 0, len(set.Facts))
	for _, f := range set.Facts {
		fs = append(fs, facts.Fact{Kind: facts.Kind(f.Kind), Subject: f.Subject, Content: f.Content})
		byContent[f.Content] = f.ID
	}
	if n, err := st.Add(ctx, fs); err != nil || n != len(fs) {
		return Score{}, fmt.Errorf("adding the set's facts: %d of %d added: %v", n, len(fs), err)
	}
	sc := Score{ByType: map[string][2]int{}}
	for _, m := range set.Messages {
		got, err := facts.Recall(ctx, st, m.Text, 5)
		if err != nil {
			return Score{}, err
		}
		ids := map[string]bool{}
		for _, f := range got {
			ids[byContent[f.Content]] = true
		}
		if len(m.Recall) == 0 {
			sc.Unrelated++
			if len(got) > 0 {
				sc.FalseHits++
			}
			continue
		}
		v := sc.ByType[m.Type]
		for _, id := range m.Recall {
			sc.Pairs++
			v[1]++
			if ids[id] {
				sc.Found++
				v[0]++
			}
		}
		sc.ByType[m.Type] = v
	}
	return sc, nil
}

// Embed embeds with llmtest's deterministic vectors (hashed words and CJK
// pieces): they exercise the mechanics of vector recall, but know no
// synonym and no other language, as a real embedding model does.
func Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = llmtest.Embed(t)
	}
	return out, nil
}
