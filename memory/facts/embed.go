package facts

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// With an embedder, search blends meaning into the word ranking:
//
//	coverage' = (1 - vectorWeight) * coverage + vectorWeight * max(0, cosine)
//
// for facts that have a vector (a fact stored before the embedder was
// configured, or while it failed, keeps its word coverage). A fact that
// shares no word with the query but means much the same (cosine 0.9)
// reaches 0.45, Recall's minimum; an unrelated one, whose cosine with
// most embedding models sits at 0.1 to 0.3, does not. Score stays the
// word score, so Scored.Score still says how many words matched.
const (
	vectorWeight = 0.5
	// maxVectorScan bounds the facts whose vectors one search reads,
	// newest first: at 1,536 dimensions each vector is 6 KB.
	maxVectorScan = 2000
)

// embedFacts returns a vector for each fact, or nil without an embedder
// or when it fails (logged: the facts are stored without vectors).
func (s *Store) embedFacts(ctx context.Context, fs []Fact) [][]float32 {
	if s.embed == nil {
		return nil
	}
	texts := make([]string, len(fs))
	for i, f := range fs {
		texts[i] = embedText(f)
	}
	vecs, err := s.vectors(ctx, texts)
	if err != nil {
		s.log.Warn("facts: embedding failed; storing facts without vectors", "err", err)
		return nil
	}
	return vecs
}

// vectors embeds texts, one vector each, none empty.
func (s *Store) vectors(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := s.embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, fmt.Errorf("embedder returned an empty vector for text %d", i)
		}
	}
	return vecs, nil
}

// embedText is what a fact's vector is computed from.
func embedText(f Fact) string {
	if f.Subject == "" {
		return f.Content
	}
	return f.Subject + ": " + f.Content
}

// blendVectors mixes cosine similarity into rs, adding facts only the
// vectors found, and re-sorts. Without an embedder it returns rs.
func (s *Store) blendVectors(ctx context.Context, query string, rs []ranked) ([]ranked, error) {
	if s.embed == nil || strings.TrimSpace(query) == "" {
		return rs, nil
	}
	qv, err := s.embed(ctx, []string{query})
	if err != nil || len(qv) != 1 {
		s.log.Warn("facts: embedding the query failed; ranking by words alone", "err", err)
		return rs, nil
	}
	rows, err := s.read.QueryContext(ctx, `SELECT id, embedding FROM facts
WHERE embedding IS NOT NULL AND embed_model = ? AND owner = ? AND superseded_by = 0 ORDER BY id DESC LIMIT ?`, s.model, s.owner, maxVectorScan)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	defer rows.Close()
	cos := map[int64]float64{}
	for rows.Next() {
		var (
			id   int64
			blob []byte
		)
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, fmt.Errorf("read vectors: %w", err)
		}
		cos[id] = cosine(qv[0], decodeVector(blob))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	seen := make(map[int64]bool, len(rs))
	for i := range rs {
		seen[rs[i].id] = true
		if c, ok := cos[rs[i].id]; ok {
			rs[i].coverage = (1-vectorWeight)*rs[i].coverage + vectorWeight*max(0, c)
		}
	}
	for id, c := range cos {
		if !seen[id] && c > 0 {
			rs = append(rs, ranked{id: id, coverage: vectorWeight * c})
		}
	}
	sortRanked(rs)
	return rs, nil
}

// encodeVector is v as little-endian float32s.
func encodeVector(v []float32) []byte {
	if v == nil {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector is the inverse of encodeVector.
func decodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// cosine is the cosine similarity of a and b; zero when their lengths
// differ (vectors from another model) or either is all zeros.
func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// EmbedOpenAI returns an embedder calling an OpenAI-compatible
// POST {baseURL}/embeddings endpoint (baseURL as for chat, ending in
// "/v1" for most servers) with the given model.
func EmbedOpenAI(baseURL, apiKey, model string) EmbedFunc {
	client := &http.Client{Timeout: 60 * time.Second}
	url := strings.TrimRight(baseURL, "/") + "/embeddings"
	return func(ctx context.Context, texts []string) ([][]float32, error) {
		body, err := json.Marshal(map[string]any{"model": model, "input": texts})
		if err != nil {
			return nil, fmt.Errorf("embeddings: %w", err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("embeddings: %w", err)
		}
		req.Header.Set("Content-Type", "application/json")
		if apiKey != "" {
			req.Header.Set("Authorization", "Bearer "+apiKey)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("embeddings: %w", err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return nil, fmt.Errorf("embeddings: read reply: %w", err)
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("embeddings: %s: %s", resp.Status, truncate(string(data), 300))
		}
		var reply struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(data, &reply); err != nil {
			return nil, fmt.Errorf("embeddings: decode reply: %w", err)
		}
		out := make([][]float32, len(texts))
		for _, d := range reply.Data {
			if d.Index < 0 || d.Index >= len(out) {
				return nil, fmt.Errorf("embeddings: reply index %d out of range for %d inputs", d.Index, len(texts))
			}
			out[d.Index] = d.Embedding
		}
		for i, v := range out {
			if v == nil {
				return nil, fmt.Errorf("embeddings: reply has no vector for input %d of %d", i, len(texts))
			}
		}
		return out, nil
	}
}

// truncate cuts s to at most n bytes on a character boundary, marking
// the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// backfillBatch is how many facts Backfill embeds in one call.
const backfillBatch = 64

// Backfill gives a vector of the store's model to every current fact of
// every owner that has none, or one of another model: facts stored before
// an embedding model was configured, or while it failed, or under the
// model configured before. It returns how many it embedded, and stops at
// the first failure to embed, which it returns.
func (s *Store) Backfill(ctx context.Context) (int, error) {
	if s.embed == nil {
		return 0, nil
	}
	done := 0
	for {
		rows, err := s.read.QueryContext(ctx, `SELECT id, subject, content FROM facts
WHERE superseded_by = 0 AND (embedding IS NULL OR embed_model != ?) ORDER BY id LIMIT ?`, s.model, backfillBatch)
		if err != nil {
			return done, fmt.Errorf("facts: backfill: %w", err)
		}
		var ids []int64
		var texts []string
		for rows.Next() {
			var f Fact
			if err := rows.Scan(&f.ID, &f.Subject, &f.Content); err != nil {
				rows.Close()
				return done, fmt.Errorf("facts: backfill: %w", err)
			}
			ids, texts = append(ids, f.ID), append(texts, embedText(f))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return done, fmt.Errorf("facts: backfill: %w", err)
		}
		if len(ids) == 0 {
			return done, nil
		}
		// A failure stops the backfill: an empty vector stored would be
		// asked for again at once, for ever.
		vecs, err := s.vectors(ctx, texts)
		if err != nil {
			return done, fmt.Errorf("facts: backfill: embedding %d facts: %w", len(texts), err)
		}
		err = s.writeTx(ctx, "facts: backfill", func(tx *sql.Tx) error {
			for i, id := range ids {
				if _, err := tx.ExecContext(ctx, `UPDATE facts SET embedding = ?, embed_model = ? WHERE id = ?`, encodeVector(vecs[i]), s.model, id); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return done, fmt.Errorf("facts: backfill: %w", err)
		}
		done += len(ids)
	}
}
