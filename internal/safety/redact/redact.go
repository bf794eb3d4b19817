package redact

import (
	"sort"
	"strings"
)

// minSecretLen is the shortest value treated as a secret: shorter values
// ("1", "true", a port) would blank out ordinary text.
const minSecretLen = 8

// Redactor replaces known secret values in text with a marker naming the
// variable they came from. hermes builds one from the API keys and tokens
// it holds, so a tool result that happens to contain one (`cat .env`,
// `env`, a verbose curl) reaches the model and the logs without it. The
// value is caught in its common encodings too (see encodings): base64,
// hex, reversed, URL-encoded, JSON-escaped, and base64 or hex wrapped
// over several lines as base64 and xxd print them.
type Redactor struct {
	r *strings.Replacer
}

// New returns a Redactor for the given variables (name → value).
// Values shorter than 8 characters are ignored. With no secrets it
// returns nil, which still redacts by format (see Redact).
func New(secrets map[string]string) *Redactor {
	type pair struct{ old, name string }
	var pairs []pair
	for name, v := range secrets {
		if len(v) < minSecretLen {
			continue
		}
		pairs = append(pairs, pair{v, name})
		for _, f := range encodings(v) {
			pairs = append(pairs, pair{f, name})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	// Longest forms first, so a secret that contains another is
	// replaced whole (the replacer prefers earlier pairs).
	sort.Slice(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		if len(a.old) != len(b.old) {
			return len(a.old) > len(b.old)
		}
		if a.old != b.old {
			return a.old < b.old
		}
		return a.name < b.name
	})
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, "[REDACTED:"+p.name+"]")
	}
	return &Redactor{r: strings.NewReplacer(args...)}
}

// Redact returns text with every known secret value replaced, in any of
// its encodings, then every secret recognized by its format (see
// Secrets). Known values go first so their markers name the variable. A
// nil *Redactor redacts by format only.
func (r *Redactor) Redact(text string) string {
	if r != nil {
		text = r.unwrap(r.r.Replace(text))
	}
	return Secrets(text)
}
