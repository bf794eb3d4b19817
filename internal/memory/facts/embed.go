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

// queryEmbedTimeout bounds the embedding of a query: a hung embedding
// server costs a recall its vectors, not the turn that recalls.
const queryEmbedTimeout = 10 * time.Second

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

// similarities embeds query and returns its cosine with the vector of
// every fact in live, and the query's background (anchors.go); ok is
// false without an embedder, or when the embedding failed (logged: recall
// then goes by words alone).
func (s *Store) similarities(ctx context.Context, query string, live map[int64]bool) (sims map[int64]float64, bg float64, ok bool, err error) {
	if s.embed == nil || strings.TrimSpace(query) == "" {
		return nil, 0, false, nil
	}
	c := s.vecs
	c.mu.Lock()
	anchors := c.anchors
	c.mu.Unlock()
	texts := []string{query}
	if anchors == nil {
		texts = append(texts, anchorTexts()...)
	}
	ectx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	vecs, err := s.vectors(ectx, texts)
	cancel()
	if err != nil {
		s.log.Warn("facts: embedding the query failed; recalling by words alone", "err", err)
		return nil, 0, false, nil
	}
	q := unit(vecs[0])
	if anchors == nil {
		for _, v := range vecs[1:] {
			anchors = append(anchors, unit(v))
		}
		c.mu.Lock()
		c.anchors = anchors
		c.mu.Unlock()
	}
	if err := c.refresh(ctx, s.read, s.model, s.now()); err != nil {
		return nil, 0, false, err
	}
	return c.similar(q, live), background(q, anchors), true, nil
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
WHERE superseded_by = 0 AND NOT EXISTS (SELECT 1 FROM fact_vectors WHERE fact_id = facts.id AND model = ?)
ORDER BY id LIMIT ?`, s.model, backfillBatch)
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
				if err := putVector(ctx, tx, id, vector{blob: encodeVector(vecs[i]), model: s.model}); err != nil {
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
