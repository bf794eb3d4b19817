package facts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// item is one fact as the model wrote it.
type item struct {
	Kind       string     `json:"kind"`
	Subject    string     `json:"subject"`
	Content    string     `json:"content"`
	Confidence confidence `json:"confidence"`
}

// confidence accepts a number, a numeric string ("0.9") or a percentage
// (90 or "90%"), as models write all of them.
type confidence float64

// UnmarshalJSON reads any of the accepted forms; anything else is zero,
// which keep drops.
func (c *confidence) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if u, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(u)
	}
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		*c = 0
		return nil
	}
	if pct || v > 1 {
		v /= 100
	}
	*c = confidence(v)
	return nil
}

// parseReply finds the JSON array of facts in a model's reply: the reply
// itself, or inside a code fence, or the first array that decodes among
// surrounding text. An empty reply is taken as "nothing to keep"; a reply
// with text but no array is an error.
func parseReply(reply string) ([]item, error) {
	reply = strings.TrimSpace(reply)
	if reply == "" {
		return nil, nil
	}
	for _, cand := range candidates(reply) {
		var items []item
		if err := json.Unmarshal([]byte(cand), &items); err == nil {
			return items, nil
		}
	}
	// Text around the array: try decoding from every "[" in turn.
	for i := 0; i < len(reply); i++ {
		if reply[i] != '[' {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(reply[i:])))
		var items []item
		if err := dec.Decode(&items); err == nil {
			return items, nil
		}
	}
	return nil, fmt.Errorf("reply holds no JSON array of facts: %q", truncate(reply, 200))
}

// candidates are the texts most likely to be exactly the array: the
// reply, and the insides of its code fences.
func candidates(reply string) []string {
	out := []string{reply}
	rest := reply
	for {
		start := strings.Index(rest, "```")
		if start < 0 {
			break
		}
		body := rest[start+3:]
		// Skip the fence's language tag ("json").
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "[{") {
			body = body[nl+1:]
		}
		end := strings.Index(body, "```")
		if end < 0 {
			out = append(out, strings.TrimSpace(body))
			break
		}
		out = append(out, strings.TrimSpace(body[:end]))
		rest = body[end+3:]
	}
	return out
}
