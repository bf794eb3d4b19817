package facts

import (
	"cmp"
	"slices"
)

// Search and recall fuse the word ranking and the vector ranking as the
// knowledge base does, by reciprocal rank: each fact scores
// 1/(rrfK + rank) in each list it is in, and the sums order the result.
// Rank fusion needs no common scale for a BM25 coverage and a cosine, and
// a fact found by both ranks above one found by either alone. Which facts
// are kept at all is decided before, by each signal's own floor (see
// Recall), not by the fused score.
const rrfK = 60

// fuse sets every fact's fused score from its place in the word ranking
// (coverage, then score) and in the vector ranking (cosine), and orders
// rs by it, newest first among equals. Facts that tie in a ranking share
// its place, so that ties stay ties, whatever order rs came in.
func fuse(rs []ranked) {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	byWords := slices.Clone(idx)
	slices.SortFunc(byWords, func(a, b int) int {
		if c := cmp.Compare(rs[b].coverage, rs[a].coverage); c != 0 {
			return c
		}
		return cmp.Compare(rs[b].score, rs[a].score)
	})
	rank := 0
	for k, i := range byWords {
		if !rs[i].words {
			break
		}
		if k > 0 && (rs[i].coverage != rs[byWords[k-1]].coverage || rs[i].score != rs[byWords[k-1]].score) {
			rank = k
		}
		rs[i].fused = 1 / float64(rrfK+rank+1)
	}
	byMeaning := idx
	slices.SortFunc(byMeaning, func(a, b int) int {
		if rs[a].vec != rs[b].vec {
			if rs[a].vec {
				return -1
			}
			return 1
		}
		return cmp.Compare(rs[b].sim, rs[a].sim)
	})
	rank = 0
	for k, i := range byMeaning {
		if !rs[i].vec {
			break
		}
		if k > 0 && rs[i].sim != rs[byMeaning[k-1]].sim {
			rank = k
		}
		rs[i].fused += 1 / float64(rrfK+rank+1)
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(b.fused, a.fused); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
}
