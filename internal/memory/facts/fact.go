package facts

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kind says what sort of thing a fact records.
type Kind string

// The kinds of fact hermes keeps.
const (
	// KindPreference is how the user wants things done ("answers in
	// Chinese", "tabs in Go code").
	KindPreference Kind = "preference"
	// KindPattern is a task the user comes back to and how it goes.
	KindPattern Kind = "pattern"
	// KindDecision is something the user decided that later work must
	// respect.
	KindDecision Kind = "decision"
	// KindFact is a stable fact about the user or their environment.
	KindFact Kind = "fact"
)

// kinds lists the accepted kinds, for validation and error messages.
var kinds = []Kind{KindPreference, KindPattern, KindDecision, KindFact}

// Valid reports whether k is one of the four kinds.
func (k Kind) Valid() bool {
	for _, v := range kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Limits on one fact, so a runaway extraction cannot fill the block that
// recall adds to every first message.
const (
	maxContentRunes = 500
	maxSubjectRunes = 120
)

// ErrNotFound is returned by Forget for an id no fact has.
var ErrNotFound = errors.New("facts: no such fact")

// Fact is one remembered record.
type Fact struct {
	// ID is the store's id; zero for a fact not yet stored.
	ID   int64
	Kind Kind
	// Subject is a few words naming what the fact is about ("answer
	// language", "部署流程"); it is searched along with Content.
	Subject string
	// Content is the fact as one sentence, in the user's language.
	Content string
	// SourceSession is the id of the conversation the fact was last
	// learned or confirmed in.
	SourceSession string
	CreatedAt     time.Time
	// LastUsedAt is when the fact was last recalled; zero if never.
	LastUsedAt time.Time
	// Uses counts recalls.
	Uses int
	// SupersededBy is the id of the newer fact of the same subject that
	// replaced this one; zero while it is current. A superseded fact is
	// neither recalled nor found, and listed only by ListAll.
	SupersededBy int64
	// Confidence is the extracting model's confidence, 0 to 1. It is not
	// stored: Extract keeps only confident facts.
	Confidence float64
}

// Scored is a fact found by a search, with how well it matched.
type Scored struct {
	Fact
	// Score is the fact's BM25 score for the query (see rank.go); higher
	// is better, comparable only within one query.
	Score float64
	// Coverage is the share, 0 to 1, of the query's most informative
	// terms that the fact matches, weighted by rarity. Recall keeps facts
	// whose coverage reaches MinCoverage.
	Coverage float64
	// Similarity is the cosine of the fact's vector with the query's,
	// and Margin how far it beats the query's background (anchors.go):
	// zero without vectors. Recall keeps facts whose margin reaches the
	// store's minimum.
	Similarity, Margin float64
}

// validate checks f for storing and returns it tidied: text trimmed and
// made one line. i is the fact's position in the caller's slice, for the
// error message.
func validate(i int, f Fact) (Fact, error) {
	f.Kind = Kind(strings.ToLower(strings.TrimSpace(string(f.Kind))))
	f.Subject = oneLine(f.Subject)
	f.Content = oneLine(f.Content)
	switch {
	case !f.Kind.Valid():
		return f, fmt.Errorf("facts[%d].kind: %q is not a kind; accepted: %v", i, f.Kind, kinds)
	case f.Content == "":
		return f, fmt.Errorf("facts[%d].content: empty; a fact needs one sentence of content", i)
	case utf8.RuneCountInString(f.Content) > maxContentRunes:
		return f, fmt.Errorf("facts[%d].content: %d characters; at most %d are accepted",
			i, utf8.RuneCountInString(f.Content), maxContentRunes)
	case utf8.RuneCountInString(f.Subject) > maxSubjectRunes:
		return f, fmt.Errorf("facts[%d].subject: %d characters; at most %d are accepted",
			i, utf8.RuneCountInString(f.Subject), maxSubjectRunes)
	}
	return f, nil
}

// oneLine trims s and turns every run of white space, newlines included,
// into one space, so a fact renders as one line of the recall block.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// normalize is the form near-duplicates are compared in: lower case,
// full-width ASCII folded to ASCII, everything but letters and digits
// dropped to single spaces, and every CJK character a word of its own,
// so that comparing whole words (add.go) compares CJK text by character.
func normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r >= 0xff01 && r <= 0xff5e {
			r -= 0xfee0
		}
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) {
			space = true
			continue
		}
		cjk := isCJK(r)
		if (space || cjk) && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = cjk
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
