package kb

import (
	"context"
	"sort"
)

// Ranked is one chunk in a ranker's list, best first.
type Ranked struct {
	Chunk int64
	// Score is the ranker's own score, larger is better (for BM25, the
	// negated bm25(); for vectors, the similarity).
	Score float64
}

// Ranker ranks the chunks matching q, best first, at most n of them.
// Search runs BM25 over the word index and, for CJK, the trigram index,
// then every Ranker of Options.Rankers (a vector ranker, once
// embeddings exist), and fuses their lists with Fuse.
type Ranker interface {
	Rank(ctx context.Context, q Query, n int) ([]Ranked, error)
}

// RRFK is reciprocal rank fusion's constant k, the one of the paper that
// introduced it (Cormack, Clarke and Büttcher, 2009): it damps the weight
// of the very top ranks so one list cannot outvote the others alone.
const RRFK = 60

// Fuse merges ranked lists by reciprocal rank fusion: a chunk scores
// the sum over the lists holding it of 1/(k + rank), rank counting from
// 1. Scores of different rankers (BM25's unbounded ones, a cosine's
// -1..1) need no common scale, only their orders count. The result is
// best first; ties keep the order in which chunks were first met. k ≤ 0
// means RRFK.
func Fuse(k int, lists ...[]Ranked) []Ranked {
	if k <= 0 {
		k = RRFK
	}
	score := map[int64]float64{}
	var order []int64
	for _, list := range lists {
		for i, r := range list {
			if _, ok := score[r.Chunk]; !ok {
				order = append(order, r.Chunk)
			}
			score[r.Chunk] += 1 / float64(k+i+1)
		}
	}
	out := make([]Ranked, len(order))
	for i, id := range order {
		out[i] = Ranked{Chunk: id, Score: score[id]}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}
