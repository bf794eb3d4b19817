package kb

import (
	"context"
	"encoding/binary"
	"math"
)

// Embedder turns texts into vectors, one per text in order; an
// embeddings endpoint (openai.Embeddings) is one. Vectors of one
// embedder must all have the same length.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// embedBatch is the most chunks embedded in one call: a failure costs at
// most this many, and the texts of a batch stay in memory.
const embedBatch = 64

// encodeVector stores v normalized to length 1, as little-endian
// float32s, so that a similarity is a dot product.
func encodeVector(v []float32) []byte {
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	norm = math.Sqrt(norm)
	if norm == 0 {
		norm = 1
	}
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(float64(x)/norm)))
	}
	return out
}

// dotBlob is the dot product of q with the vector encoded in blob; false
// when their lengths differ.
func dotBlob(q []float32, blob []byte) (float64, bool) {
	if len(blob) != 4*len(q) {
		return 0, false
	}
	blob = blob[:4*len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	// Four sums at once: the loads and multiplies of one do not wait for
	// the additions of another.
	for ; i+4 <= len(q); i += 4 {
		b := blob[4*i : 4*i+16]
		s0 += q[i] * math.Float32frombits(binary.LittleEndian.Uint32(b[0:]))
		s1 += q[i+1] * math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
		s2 += q[i+2] * math.Float32frombits(binary.LittleEndian.Uint32(b[8:]))
		s3 += q[i+3] * math.Float32frombits(binary.LittleEndian.Uint32(b[12:]))
	}
	for ; i < len(q); i++ {
		s0 += q[i] * math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
	}
	return float64(s0 + s1 + s2 + s3), true
}

// dot is the dot product of two vectors of the same length.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// normalize scales v to length 1 in place (a zero vector stays zero).
func normalize(v []float32) []float32 {
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return v
	}
	inv := 1 / math.Sqrt(norm)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return v
}

// decodeVector undoes encodeVector.
func decodeVector(blob []byte) []float32 { return decodeInto(nil, blob) }

// decodeInto undoes encodeVector into buf, grown as needed, and returns
// it.
func decodeInto(buf []float32, blob []byte) []float32 {
	n := len(blob) / 4
	if cap(buf) < n {
		buf = make([]float32, n)
	}
	buf = buf[:n]
	for i := range buf {
		buf[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
	}
	return buf
}

// rankHeap is a min-heap of Ranked by score, so the worst of the best n
// is at the top to be replaced.
type rankHeap []Ranked

func (h rankHeap) Len() int           { return len(h) }
func (h rankHeap) Less(i, j int) bool { return h[i].Score < h[j].Score }
func (h rankHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(x any)        { *h = append(*h, x.(Ranked)) }
func (h *rankHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
