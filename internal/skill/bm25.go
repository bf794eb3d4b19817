package skill

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// BM25 parameters: the usual defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Field weights: a query word in a skill's name or tags says more about
// the skill than the same word somewhere in its body. A field's tokens are
// counted weight times.
const (
	weightName = 4
	weightTags = 3
	weightDesc = 2
	weightBody = 1
)

// bm25 is a small in-memory BM25 index over a snapshot's skills.
type bm25 struct {
	docs   []*Skill
	tf     []map[string]float64
	length []float64
	avgLen float64
	df     map[string]int
}

// newBM25 indexes the skills' name, tags, description and body.
func newBM25(skills []*Skill) *bm25 {
	ix := &bm25{docs: skills, df: make(map[string]int)}
	var total float64
	for _, sk := range skills {
		tf := make(map[string]float64)
		var n float64
		add := func(text string, w float64) {
			for _, t := range tokenize(text) {
				tf[t] += w
				n += w
			}
		}
		add(sk.Name, weightName)
		add(strings.Join(sk.Tags, " "), weightTags)
		add(sk.Category, weightTags)
		add(sk.Description, weightDesc)
		add(sk.Body, weightBody)
		for t := range tf {
			ix.df[t]++
		}
		ix.tf = append(ix.tf, tf)
		ix.length = append(ix.length, n)
		total += n
	}
	if len(skills) > 0 {
		ix.avgLen = total / float64(len(skills))
	}
	return ix
}

// Hit is one search result.
type Hit struct {
	Skill *Skill
	Score float64
}

// search returns up to limit skills matching query, best first; ties go
// by name so results are stable.
func (ix *bm25) search(query string, limit int) []Hit {
	terms := uniq(tokenize(query))
	n := float64(len(ix.docs))
	var hits []Hit
	for i, sk := range ix.docs {
		var score float64
		for _, t := range terms {
			f := ix.tf[i][t]
			if f == 0 {
				continue
			}
			df := float64(ix.df[t])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			norm := 1 - bm25B + bm25B*ix.length[i]/ix.avgLen
			score += idf * f * (bm25K1 + 1) / (f + bm25K1*norm)
		}
		if score > 0 {
			hits = append(hits, Hit{Skill: sk, Score: score})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		return hits[a].Skill.Name < hits[b].Skill.Name
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// tokenize lowercases text and splits it into words of letters and
// digits; each Han, Hiragana, Katakana or Hangul character is a word of
// its own, so CJK text can be searched without a dictionary. Very common
// English words are dropped.
func tokenize(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			w := string(cur)
			if !stopWord(w) {
				out = append(out, stem(w))
			}
			cur = cur[:0]
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// stem strips a plural "s" so "deploys" finds "deploy"; anything more
// would need a real stemmer.
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

func uniq(ts []string) []string {
	seen := make(map[string]bool, len(ts))
	out := ts[:0:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// stopWord reports the words too common to rank skills by. A switch
// rather than a map, so that nothing is built at start-up.
func stopWord(w string) bool {
	switch w {
	case "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "i",
		"in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "when",
		"with", "you", "your", "use", "do":
		return true
	}
	return false
}

// Search returns up to limit skills for this platform ranked by BM25 over
// name, tags, category, description and body.
func (l *Library) Search(query string, limit int) []Hit {
	snap := l.current()
	snap.searchOnce.Do(func() {
		var docs []*Skill
		for _, sk := range snap.skills {
			if onPlatform(sk, l.opts.Platform) {
				docs = append(docs, sk)
			}
		}
		snap.search = newBM25(docs)
	})
	return snap.search.search(query, limit)
}
