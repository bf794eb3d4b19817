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
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/memory/facts"
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
	byContent, err := store(ctx, st, set)
	if err != nil {
		return Score{}, err
	}
	return score(set, func(text string) ([]string, error) {
		got, err := facts.Recall(ctx, st, text, 5)
		return ids(got, byContent), err
	})
}

// Sweep stores the set's facts in st, which must be empty, and scores
// Recall with each minimum margin (facts.Options.MinMargin) in margins:
// the figures to choose a margin for an embedding model from. Each
// margin recalls for every message again, so an embedder that is slow or
// charged per call is best memoized (see Memo).
func Sweep(ctx context.Context, st *facts.Store, set Set, margins []float64) ([]Score, error) {
	byContent, err := store(ctx, st, set)
	if err != nil {
		return nil, err
	}
	out := make([]Score, len(margins))
	for i, margin := range margins {
		view := st.WithMinMargin(margin)
		out[i], err = score(set, func(text string) ([]string, error) {
			got, err := facts.Recall(ctx, view, text, 5)
			return ids(got, byContent), err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Memo returns embed remembering the vector of every text it embedded.
func Memo(embed facts.EmbedFunc) facts.EmbedFunc {
	var mu sync.Mutex
	seen := map[string][]float32{}
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		mu.Lock()
		var todo []string
		for _, t := range texts {
			if _, ok := seen[t]; !ok && !slices.Contains(todo, t) {
				todo = append(todo, t)
			}
		}
		mu.Unlock()
		if len(todo) > 0 {
			vecs, err := embed(ctx, todo)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			for i, t := range todo {
				seen[t] = vecs[i]
			}
			mu.Unlock()
		}
		mu.Lock()
		defer mu.Unlock()
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = seen[t]
		}
		return out, nil
	}
}

// store adds the set's facts to st and returns their ids by content.
func store(ctx context.Context, st *facts.Store, set Set) (map[string]string, error) {
	byContent := map[string]string{}
	fs := make([]facts.Fact, 0, len(set.Facts))
	for _, f := range set.Facts {
		fs = append(fs, facts.Fact{Kind: facts.Kind(f.Kind), Subject: f.Subject, Content: f.Content})
		byContent[f.Content] = f.ID
	}
	if n, err := st.Add(ctx, fs); err != nil || n != len(fs) {
		return nil, fmt.Errorf("adding the set's facts: %d of %d added: %v", n, len(fs), err)
	}
	return byContent, nil
}

// ids are the set's ids of fs.
func ids(fs []facts.Fact, byContent map[string]string) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, byContent[f.Content])
	}
	return out
}

// score scores what recall returns for each message of set.
func score(set Set, recall func(text string) ([]string, error)) (Score, error) {
	sc := Score{ByType: map[string][2]int{}}
	for _, m := range set.Messages {
		got, err := recall(m.Text)
		if err != nil {
			return Score{}, err
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
			if slices.Contains(got, id) {
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
