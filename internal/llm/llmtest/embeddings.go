package llmtest

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// EmbeddingDims is the length of the vectors POST /v1/embeddings returns.
const EmbeddingDims = 64

// Embed is the vector the server returns for text: every distinct word
// (lower case, letters and digits) and every distinct bigram of CJK
// characters is hashed to a pseudo-random ±1 projection over
// EmbeddingDims dimensions, the projections are summed and the sum
// normalized. Counting each feature once keeps a text's frequent filler
// words from drowning the rare ones that say what it is about. Texts sharing words get
// close vectors, and the same text always gets the same one, so tests
// exercise vector search mechanics without a model.
func Embed(text string) []float32 {
	sum := make([]float64, EmbeddingDims)
	seen := map[string]bool{}
	for _, f := range embedFeatures(text) {
		if seen[f] {
			continue
		}
		seen[f] = true
		h := fnv.New64a()
		_, _ = h.Write([]byte(f))
		x := h.Sum64()
		for d := range sum {
			// A xorshift step per dimension spreads one hash over all
			// of them.
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if x&1 == 1 {
				sum[d]++
			} else {
				sum[d]--
			}
		}
	}
	var norm float64
	for _, v := range sum {
		norm += v * v
	}
	out := make([]float32, EmbeddingDims)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for d, v := range sum {
		out[d] = float32(v / norm)
	}
	return out
}

// embedFeatures is text's words and CJK character bigrams.
func embedFeatures(text string) []string {
	var out []string
	var word []rune
	var prevCJK rune
	flush := func() {
		if len(word) > 0 {
			out = append(out, string(word))
			word = word[:0]
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r):
			flush()
			if prevCJK != 0 {
				out = append(out, string([]rune{prevCJK, r}))
			}
			prevCJK = r
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word = append(word, r)
		default:
			flush()
		}
		prevCJK = 0
	}
	flush()
	return out
}

// serveEmbeddings answers POST /v1/embeddings in OpenAI's shape: input
// is one string or a list of them, and each gets Embed's vector.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readPost(w, r, ChatCompletions)
	if !ok {
		return
	}
	var req struct {
		Input json.RawMessage `json:"input"`
		Model string          `json:"model"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.violate("POST /v1/embeddings: body is not JSON: " + err.Error())
		writeHTTPError(w, protocolFor(ChatCompletions), http.StatusBadRequest, ErrorReply{Message: "body is not JSON"}, "")
		return
	}
	var inputs []string
	var one string
	if json.Unmarshal(req.Input, &one) == nil {
		inputs = []string{one}
	} else if json.Unmarshal(req.Input, &inputs) != nil || len(inputs) == 0 {
		s.violate("POST /v1/embeddings: input is not a string or a non-empty list of strings")
		writeHTTPError(w, protocolFor(ChatCompletions), http.StatusBadRequest, ErrorReply{Message: "'input' must be a string or a non-empty array of strings"}, "")
		return
	}
	if req.Model == "" {
		s.violate("POST /v1/embeddings: missing model")
		writeHTTPError(w, protocolFor(ChatCompletions), http.StatusBadRequest, ErrorReply{Message: "you must provide a model parameter"}, "")
		return
	}
	s.mu.Lock()
	s.embedCalls++
	s.mu.Unlock()
	data := make([]map[string]any, len(inputs))
	tokens := 0
	for i, in := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Embed(in)}
		tokens += len(embedFeatures(in))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// EmbeddingCalls is the number of POST /v1/embeddings answered.
func (s *Server) EmbeddingCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedCalls
}
