package config

import (
	"fmt"
	"sort"
	"strings"
)

// FieldError reports one value that the configuration does not accept, in
// the form "SOURCE: KEY: MESSAGE", for example
//
//	config.yaml:12: agent.api_max_retries: "three" is not an integer
//
// so that a person can go straight to the line, variable or flag to fix.
type FieldError struct {
	// Source is where the value came from: "config.yaml:12",
	// ".env:3 HERMES_AGENT_MAX_TURNS", "env HERMES_AGENT_MAX_TURNS",
	// "command line", or empty for a value given to Set.
	Source string
	// Key is the dotted key, such as "model.api_mode".
	Key string
	// Value is the rejected text (redacted for secrets).
	Value string
	// Message says what is wrong and what is accepted, usually the quoted
	// value followed by the problem.
	Message string
}

// Error returns "SOURCE: KEY: MESSAGE", leaving out an empty source.
func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Source != "" {
		b.WriteString(e.Source)
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// badValue builds the usual FieldError: the quoted value and the problem.
func badValue(source, key, value, prob string) *FieldError {
	return &FieldError{Source: source, Key: key, Value: value, Message: fmt.Sprintf("%q %s", value, prob)}
}

// UnknownKeyError reports a key that no setting has, with the closest known
// keys as suggestions.
type UnknownKeyError struct {
	// Source is where the key was written, or empty for Get and Set.
	Source string
	// Key is the key as written.
	Key string
	// Suggestions are known keys close to Key, best first.
	Suggestions []string
}

// Error returns the key and the suggestions, after the source if any.
func (e *UnknownKeyError) Error() string {
	msg := unknownKeyText(e.Key, e.Suggestions)
	if e.Source != "" {
		return e.Source + ": " + msg
	}
	return msg
}

func unknownKeyText(key string, suggestions []string) string {
	msg := fmt.Sprintf("unknown key %q", key)
	switch len(suggestions) {
	case 0:
	case 1:
		msg += fmt.Sprintf(" (did you mean %q?)", suggestions[0])
	default:
		q := make([]string, len(suggestions))
		for i, s := range suggestions {
			q[i] = fmt.Sprintf("%q", s)
		}
		msg += " (did you mean " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1] + "?)"
	}
	return msg
}

// problem is the error a value parser returns: the text after the quoted
// value, such as "is not accepted; use one of a, b". Types in this package
// return it from UnmarshalText so their messages fit the FieldError form.
type problem string

// Error returns the problem phrase.
func (p problem) Error() string { return string(p) }

// suggest returns up to three candidates close to name, best first. Close
// means within an edit distance that grows with the length of the name,
// counting a swap of two neighbouring letters as one edit ("modle" is one
// edit from "model").
func suggest(name string, candidates []string) []string {
	limit := max(2, len(name)/3)
	type scored struct {
		s string
		d int
	}
	var found []scored
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] || c == name {
			continue
		}
		seen[c] = true
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d <= limit {
			found = append(found, scored{c, d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].d != found[j].d {
			return found[i].d < found[j].d
		}
		return found[i].s < found[j].s
	})
	var out []string
	for i := 0; i < len(found) && i < 3; i++ {
		out = append(out, found[i].s)
	}
	return out
}

// editDistance is the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours each cost
// one. Inputs are keys, so the quadratic table stays small; very long
// inputs are compared by length only.
func editDistance(a, b string) int {
	if len(a) > 128 || len(b) > 128 {
		return max(len(a), len(b))
	}
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
