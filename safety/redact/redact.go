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
// `env`, a verbose curl) reaches the model and the logs without it.
type Redactor struct {
	r *strings.Replacer
}

// New returns a Redactor for the given variables (name → value).
// Values shorter than 8 characters are ignored. With no secrets it
// returns nil, which still redacts by format (see Redact).
func New(secrets map[string]string) *Redactor {
	names := make([]string, 0, len(secrets))
	for name, v := range secrets {
		if len(v) >= minSecretLen {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	// Longest values first, so a secret that contains another is
	// replaced whole.
	sort.Slice(names, func(i, j int) bool {
		a, b := secrets[names[i]], secrets[names[j]]
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return names[i] < names[j]
	})
	pairs := make([]string, 0, 2*len(names))
	for _, n := range names {
		pairs = append(pairs, secrets[n], "[REDACTED:"+n+"]")
	}
	return &Redactor{r: strings.NewReplacer(pairs...)}
}

// Redact returns text with every known secret value replaced, then every
// secret recognized by its format (see Secrets). Known values go
// first so their markers name the variable. A nil *Redactor redacts by
// format only.
func (r *Redactor) Redact(text string) string {
	if r != nil {
		text = r.r.Replace(text)
	}
	return Secrets(text)
}
