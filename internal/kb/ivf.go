package kb

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// The vector index is an inverted file (IVF-flat): spherical k-means
// splits the vectors into cells around centroids, each vector is stored
// with its nearest cell, and a search reads only the vectors of the
// cells nearest the query. Below indexAbove vectors a search reads them
// all, which is exact and, at that size, fast enough: reading a vector
// from SQLite and scoring it costs about 2.4 µs at 384 dimensions here,
// so 5,000 take 12 ms, and 100,000 take 236 ms where the index takes 9. HNSW would find
// neighbours with fewer reads, but its graph lives in memory (hundreds
// of megabytes at 100k vectors of 768 dimensions) or costs a random read
// per hop from SQLite; an IVF's cells are one indexed range each, and
// its centroids a few hundred rows.
const (
	// indexAbove is the number of vectors at which the index is built.
	indexAbove = 5_000
	// kmeansRounds is k-means' number of rounds: the cells stop moving
	// much after a handful, and each round costs a pass over the sample.
	kmeansRounds = 8
	// samplePerCell is how many vectors per cell k-means learns from.
	samplePerCell = 32
)

// cellsFor is the number of cells for n vectors: √n, so a cell holds √n
// vectors and a search's cost, centroids plus the probed cells, grows
// as √n.
func cellsFor(n int) int {
	return min(max(int(math.Sqrt(float64(n))), 16), 4096)
}

// probesFor is how many of nlist cells a search reads: a 32nd of them,
// at least 8. Vectors near a cell's border belong as much to the next
// one; reading several cells finds them. At 100k vectors of topics, 10
// cells of 316 find 97% of the exact 20 nearest (BenchmarkVectorSearch100k).
func probesFor(nlist int) int {
	return min(max(nlist/32, 8), nlist)
}

// cell is one cell of the index.
type cell struct {
	id       int64
	centroid []float32
}

// loadCells reads the index's cells; none when there is no index.
func loadCells(ctx context.Context, q querier) ([]cell, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, centroid FROM kb_cells ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read the vector index: %w", err)
	}
	defer rows.Close()
	var out []cell
	for rows.Next() {
		var c cell
		var blob []byte
		if err := rows.Scan(&c.id, &blob); err != nil {
			return nil, fmt.Errorf("read the vector index: %w", err)
		}
		c.centroid = decodeVector(blob)
		out = append(out, c)
	}
	return out, rows.Err()
}

// nearestCell is the id of the cell whose centroid is nearest v, 0 when
// there are no cells (or none of v's length).
func nearestCell(cells []cell, v []float32) int64 {
	var best int64
	bestScore := float32(math.Inf(-1))
	for _, c := range cells {
		if len(c.centroid) != len(v) {
			continue
		}
		if s := dot(v, c.centroid); s > bestScore {
			best, bestScore = c.id, s
		}
	}
	return best
}

// nearestCells is the ids of the n cells nearest v, nearest first.
func nearestCells(cells []cell, v []float32, n int) []int64 {
	type scored struct {
		id int64
		s  float32
	}
	all := make([]scored, 0, len(cells))
	for _, c := range cells {
		if len(c.centroid) == len(v) {
			all = append(all, scored{c.id, dot(v, c.centroid)})
		}
	}
	slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
	out := make([]int64, 0, n)
	for _, x := range all[:min(n, len(all))] {
		out = append(out, x.id)
	}
	return out
}

// kmeans clusters unit vectors into k cells by spherical k-means: each
// vector goes to the centroid of largest dot product, and each centroid
// is the normalized mean of its vectors. Centroids start at k distinct
// vectors of the sample; a cell left empty restarts at a random vector.
// The assignment step, k dot products per vector, runs on every core.
func kmeans(ctx context.Context, sample [][]float32, k int, rng *rand.Rand) ([][]float32, error) {
	k = min(k, len(sample))
	cents := make([][]float32, k)
	for i, j := range rng.Perm(len(sample))[:k] {
		cents[i] = slices.Clone(sample[j])
	}
	assign := make([]int, len(sample))
	workers := runtime.GOMAXPROCS(0)
	for range kmeansRounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := w; i < len(sample); i += workers {
					assign[i] = nearestIndex(cents, sample[i])
				}
			})
		}
		wg.Wait()
		dims := len(sample[0])
		sums := make([][]float32, k)
		for i := range sums {
			sums[i] = make([]float32, dims)
		}
		counts := make([]int, k)
		for i, c := range assign {
			counts[c]++
			for d, x := range sample[i] {
				sums[c][d] += x
			}
		}
		for c := range cents {
			if counts[c] == 0 {
				cents[c] = slices.Clone(sample[rng.IntN(len(sample))])
				continue
			}
			cents[c] = normalize(sums[c])
		}
	}
	return cents, nil
}

// nearestIndex is the index in cents of the centroid nearest v.
func nearestIndex(cents [][]float32, v []float32) int {
	best, bestScore := 0, float32(math.Inf(-1))
	for i, c := range cents {
		if s := dot(v, c); s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}
