package prompt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prompt is a system prompt in its three tiers, most stable first. Keeping
// the tiers apart lets a provider place cache breakpoints between them and
// lets hermes report what each costs.
type Prompt struct {
	// Stable is identity, tool guidance, memory guidance and the skills
	// index.
	Stable string
	// Context is the project context files of the working directory.
	Context string
	// Volatile is the memory snapshot and the date.
	Volatile string
}

// Text is the prompt as sent: the non-empty tiers in order, separated by one
// blank line.
func (p Prompt) Text() string {
	return joinTiers(p.Stable, p.Context, p.Volatile)
}

// joinTiers joins the non-empty tiers with one blank line. Unlike
// joinParts it does not trim: a tier's bytes are kept exactly.
func joinTiers(tiers ...string) string {
	var kept []string
	for _, t := range tiers {
		if t != "" {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n\n")
}

// Size is how big one tier of a prompt is.
type Size struct {
	// Tier is "stable", "context" or "volatile".
	Tier string `json:"tier"`
	// Chars counts characters (runes), not bytes.
	Chars int `json:"chars"`
	// Tokens is EstimateTokens of the tier.
	Tokens int `json:"tokens"`
}

// Sizes gives the size of each tier, in tier order, so that hermes can show
// where the prompt's tokens go.
func (p Prompt) Sizes() []Size {
	tiers := []struct{ name, text string }{
		{"stable", p.Stable}, {"context", p.Context}, {"volatile", p.Volatile},
	}
	out := make([]Size, len(tiers))
	for i, t := range tiers {
		out[i] = Size{Tier: t.name, Chars: utf8.RuneCountInString(t.text), Tokens: EstimateTokens(t.text)}
	}
	return out
}

// EstimateTokens guesses how many tokens s costs without a tokenizer: one
// per CJK character (Han, kana, Hangul and their punctuation, which
// tokenizers split finely) and one per four other characters, rounded up.
// It is meant for budgets and reports, where being within a few tens of
// percent is enough.
func EstimateTokens(s string) int {
	cjk, other := 0, 0
	for _, r := range s {
		if isCJK(r) {
			cjk++
		} else {
			other++
		}
	}
	return cjk + (other+3)/4
}

// isCJK reports whether r is written in a Chinese, Japanese or Korean
// script, or is one of their full-width punctuation marks.
func isCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo):
		return true
	case r >= 0x3000 && r <= 0x303F: // CJK symbols and punctuation
		return true
	case r >= 0xFF00 && r <= 0xFFEF: // half- and full-width forms
		return true
	}
	return false
}
