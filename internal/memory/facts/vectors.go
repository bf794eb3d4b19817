package facts

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sync"
	"time"
)

// vectorCache keeps the stored vectors of one embedding model in memory,
// quantized to a byte per dimension, so a recall compares the query with
// every current fact without reading their vectors from disk: 10,000
// facts of 1,536 dimensions are 15 MB here, against 60 MB of float32s
// read per recall. It is shared by the store's views (For) and reads only
// the vectors stored since it last looked (fact_vectors.seq grows with
// every vector stored, a replaced one included). The facts' own table
// says which facts are current; the cache keeps vectors of forgotten
// facts until its next prune.
type vectorCache struct {
	mu     sync.Mutex
	seq    int64
	dims   int
	ids    []int64
	scales []float32
	// slab holds the vectors' bytes, dims each, in the order of ids: one
	// block of memory the scan runs through in order.
	slab   []int8
	at     map[int64]int
	pruned time.Time
	// anchors are the vectors of anchorTexts, normalized, once embedded.
	anchors [][]float32
}

// pruneEvery is how often the cache drops the vectors of facts forgotten
// or embedded again by another model.
const pruneEvery = time.Minute

// quantize returns v normalized and stored a byte per dimension, and the
// scale s that gives v[i] ≈ s * q[i]: the cosine it then gives is within
// about 0.01 of the exact one.
func quantize(v []float32) (q []int8, scale float32) {
	var norm, peak float64
	for _, x := range v {
		norm += float64(x) * float64(x)
		peak = max(peak, math.Abs(float64(x)))
	}
	q = make([]int8, len(v))
	if norm == 0 || peak == 0 {
		return q, 0
	}
	norm = math.Sqrt(norm)
	step := peak / norm / 127
	for i, x := range v {
		q[i] = int8(math.Round(float64(x) / norm / step))
	}
	return q, float32(step)
}

// dot8 is the dot product of two byte vectors of the same length, eight
// products a step, on slices the compiler knows the length of (no bounds
// checks inside the step).
func dot8(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1 int32
	for len(a) >= 8 {
		x, y := a[:8:8], b[:8:8]
		s0 += int32(x[0])*int32(y[0]) + int32(x[1])*int32(y[1]) + int32(x[2])*int32(y[2]) + int32(x[3])*int32(y[3])
		s1 += int32(x[4])*int32(y[4]) + int32(x[5])*int32(y[5]) + int32(x[6])*int32(y[6]) + int32(x[7])*int32(y[7])
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1
}

// put stores fact id's vector v, replacing the one it had. A vector of
// other dimensions than the cache's (another model's answer after a
// change of model) restarts the cache with it.
func (c *vectorCache) put(id int64, v []float32) {
	if len(v) != c.dims {
		c.dims, c.ids, c.scales, c.slab, c.at = len(v), nil, nil, nil, map[int64]int{}
	}
	q, scale := quantize(v)
	if i, ok := c.at[id]; ok {
		copy(c.slab[i*c.dims:], q)
		c.scales[i] = scale
		return
	}
	c.at[id] = len(c.ids)
	c.ids = append(c.ids, id)
	c.scales = append(c.scales, scale)
	c.slab = append(c.slab, q...)
}

// refresh reads the vectors of model stored since the last refresh, and
// now and then drops the ones no longer stored.
func (c *vectorCache) refresh(ctx context.Context, read *sql.DB, model string, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil {
		c.at = map[int64]int{}
	}
	rows, err := read.QueryContext(ctx, `SELECT seq, fact_id, vector FROM fact_vectors WHERE seq > ? AND model = ? ORDER BY seq`, c.seq, model)
	if err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seq, id int64
			blob    []byte
		)
		if err := rows.Scan(&seq, &id, &blob); err != nil {
			return fmt.Errorf("read vectors: %w", err)
		}
		c.put(id, decodeVector(blob))
		c.seq = max(c.seq, seq)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read vectors: %w", err)
	}
	if now.Sub(c.pruned) < pruneEvery {
		return nil
	}
	return c.prune(ctx, read, model, now)
}

// prune drops the vectors whose fact is gone or has a vector of another
// model now. c.mu is held.
func (c *vectorCache) prune(ctx context.Context, read *sql.DB, model string, now time.Time) error {
	rows, err := read.QueryContext(ctx, `SELECT fact_id FROM fact_vectors WHERE model = ?`, model)
	if err != nil {
		return fmt.Errorf("list vectors: %w", err)
	}
	defer rows.Close()
	keep := make(map[int64]bool, len(c.ids))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("list vectors: %w", err)
		}
		keep[id] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list vectors: %w", err)
	}
	n := 0
	for i, id := range c.ids {
		if !keep[id] {
			delete(c.at, id)
			continue
		}
		c.ids[n], c.scales[n] = id, c.scales[i]
		copy(c.slab[n*c.dims:(n+1)*c.dims], c.slab[i*c.dims:(i+1)*c.dims])
		c.at[id] = n
		n++
	}
	c.ids, c.scales, c.slab = c.ids[:n], c.scales[:n], c.slab[:n*c.dims]
	c.pruned = now
	return nil
}

// similar returns the cosine of q (normalized) with the vector of every
// fact in live that has one. The query is quantized as the vectors are,
// so the scan is integer products: 10,000 vectors of 1,536 dimensions in
// a few milliseconds.
func (c *vectorCache) similar(q []float32, live map[int64]bool) map[int64]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[int64]float64, min(len(live), len(c.ids)))
	if len(q) != c.dims {
		return out
	}
	qq, qs := quantize(q)
	for i, id := range c.ids {
		if live[id] {
			out[id] = float64(dot8(qq, c.slab[i*c.dims:(i+1)*c.dims])) * float64(c.scales[i]*qs)
		}
	}
	return out
}

// unit returns v scaled to length one (v itself when all zeros).
func unit(v []float32) []float32 {
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return v
	}
	out := make([]float32, len(v))
	inv := 1 / math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}
