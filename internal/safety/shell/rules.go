package shell

import (
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// rule is one entry of the detection table. A rule fires when any of its
// matchers does; hardline rules come first and, within a level, the order
// is the order in which a command's verdict is chosen.
type rule struct {
	key   string // stable short key: command_allowlist entries and session grants use it
	desc  string // what the rule guards against, for people and the model
	level Level
	// names lists, space-separated, the programs (canonical names, see
	// programName) whose calls cmd and check read; "" means every call.
	names string
	// cmd are regular expressions over a call's line, "name arg arg …".
	// {G} stands for a run of global options before a subcommand.
	cmd []string
	// check is a structural test of one call.
	check func(*call) bool
	// text are regular expressions over every call line and
	// here-document body, for content such as SQL that matters wherever
	// it appears; hint lists words one of which the text must contain
	// for the expressions to be worth running.
	text      []string
	hint      []string
	textCheck func(string) bool
	// sql limits text and textCheck to what reaches a database.
	sql bool
	// scan is a test of a whole script (pipelines, command sequences).
	scan func(*scriptView) bool
}

// compiledRule is a rule with its expressions compiled.
type compiledRule struct {
	rule
	names  []string
	cmdRE  []*regexp.Regexp
	textRE []*regexp.Regexp
}

// globalOptions replaces {G}: options, each with an optional value, that
// a CLI such as git or hermes takes before its subcommand.
const globalOptions = `(?: -\S+(?: [^-\s]\S*)?)*`

// ruleSet is the compiled table with an index from program names to the
// rules that read their calls, so that a command costs one lookup per
// call rather than one per rule and name.
type ruleSet struct {
	rules   []*compiledRule
	byName  map[string][]int // call rules by program name
	anyCall []int            // call rules that read every call
	whole   []int            // text and scan rules
}

// rules is the compiled rule table. It is built on first use, not at
// start-up, and never changes afterwards.
var rules = lazy.Value[*ruleSet]{New: func() *ruleSet {
	table := append(hardlineRules(), dangerousRules()...)
	rs := &ruleSet{byName: make(map[string][]int)}
	for i, r := range table {
		c := &compiledRule{rule: r, names: strings.Fields(r.names)}
		for _, expr := range r.cmd {
			c.cmdRE = append(c.cmdRE, regexp.MustCompile(strings.ReplaceAll(expr, "{G}", globalOptions)))
		}
		for _, expr := range r.text {
			c.textRE = append(c.textRE, regexp.MustCompile(expr))
		}
		rs.rules = append(rs.rules, c)
		if len(c.cmdRE) > 0 || c.check != nil {
			if len(c.names) == 0 {
				rs.anyCall = append(rs.anyCall, i)
			}
			for _, n := range c.names {
				rs.byName[n] = append(rs.byName[n], i)
			}
		}
		if len(c.textRE) > 0 || c.textCheck != nil || c.scan != nil {
			rs.whole = append(rs.whole, i)
		}
	}
	return rs
}}

// match returns a verdict for every rule the analysis matches, in table
// order, each with the text of the first command (or script) it matched.
func (a *analysis) match(rs *ruleSet) []Verdict {
	hit := make([]bool, len(rs.rules))
	var found []Verdict // in the order found; Match holds the text
	var index []int     // the rule of each
	add := func(i int, where string) {
		r := rs.rules[i]
		hit[i] = true
		found = append(found, Verdict{Level: r.level, Rule: r.key, Description: r.desc, Match: where})
		index = append(index, i)
	}
	for _, c := range a.calls {
		for _, group := range [2][]int{rs.byName[c.name], rs.anyCall} {
			for _, i := range group {
				if !hit[i] && rs.rules[i].matchesCall(c) {
					add(i, c.source())
				}
			}
		}
	}
	for _, i := range rs.whole {
		if !hit[i] {
			if where, ok := a.matchesWhole(rs.rules[i]); ok {
				add(i, where)
			}
		}
	}
	if len(found) < 2 {
		return found
	}
	out := make([]Verdict, 0, len(found))
	for i := range rs.rules { // table order
		if hit[i] {
			out = append(out, found[slices.Index(index, i)])
		}
	}
	return out
}

// source returns the call's own text, for a match.
func (c *call) source() string {
	if c.cmd.src != "" {
		return c.cmd.src
	}
	return c.line
}

// matchesCall reports whether r's call matchers fire on c.
func (r *compiledRule) matchesCall(c *call) bool {
	for _, re := range r.cmdRE {
		if re.MatchString(c.line) {
			return true
		}
	}
	return r.check != nil && r.check(c)
}

// matchesWhole reports whether r's text or script matchers fire anywhere
// in a, and the text they fired on.
func (a *analysis) matchesWhole(r *compiledRule) (string, bool) {
	if len(r.textRE) > 0 || r.textCheck != nil {
		texts := a.texts
		if r.sql {
			texts = a.sqlTexts
		}
		for _, t := range texts {
			if !containsAny(t.text, r.hint) {
				continue
			}
			for _, re := range r.textRE {
				if re.MatchString(t.text) {
					return t.src, true
				}
			}
			if r.textCheck != nil && r.textCheck(t.text) {
				return t.src, true
			}
		}
	}
	if r.scan != nil {
		for _, sv := range a.scripts {
			if r.scan(sv) {
				return strings.TrimRight(strings.TrimSuffix(sv.sc.src, ")"), " \t\n;"), true
			}
		}
	}
	return "", false
}

// containsAny reports whether s contains one of words; no words means yes.
func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return len(words) == 0
}

// Rules lists every rule hermes applies, hardline ones first, as verdicts:
// the keys and descriptions a configuration may name in command_allowlist.
func Rules() []Verdict {
	table := rules.Get().rules
	out := make([]Verdict, len(table))
	for i, r := range table {
		out[i] = Verdict{Level: r.level, Rule: r.key, Description: r.desc}
	}
	return out
}

// LookupRule returns the rule whose key or description is name, ignoring
// case and surrounding blanks: a command_allowlist entry may name a rule
// either way (Hermes's own command_allowlist stores descriptions).
func LookupRule(name string) (Verdict, bool) {
	e := strings.ToLower(strings.TrimSpace(name))
	for _, r := range rules.Get().rules {
		if e == r.key || e == strings.ToLower(r.desc) {
			return Verdict{Level: r.level, Rule: r.key, Description: r.desc}, true
		}
	}
	return Verdict{}, false
}
