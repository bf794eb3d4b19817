package prompt

import (
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/llm"
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

// EstimateTokens is llm.EstimateText: one token per CJK character, one
// per four other characters, rounded up; close enough for the sizes
// "hermes prompt show" reports.
func EstimateTokens(s string) int { return llm.EstimateText(s) }
