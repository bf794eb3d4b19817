package safety

// Command patterns: the globs of approvals.deny and command_allowlist, and
// the rule names an allowlist entry may give instead.

import (
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// globMatch reports whether s matches pattern as a whole. In a pattern, *
// matches any run of characters (spaces and slashes included, since a
// command is not a path) and ? matches one character, except that neither
// matches a byte in stop; everything else matches itself. It runs in time
// proportional to len(pattern)*len(s) at worst, with no recursion, so a
// hostile pattern or command cannot make it slow.
func globMatch(pattern, s, stop string) bool {
	p, i := 0, 0
	starP, starI := -1, 0
	for i < len(s) {
		if p < len(pattern) {
			switch c := pattern[p]; c {
			case '*':
				starP, starI = p, i
				p++
				continue
			case '?':
				if strings.IndexByte(stop, s[i]) >= 0 {
					break
				}
				_, n := utf8.DecodeRuneInString(s[i:])
				p, i = p+1, i+n
				continue
			default:
				if s[i] == c {
					p, i = p+1, i+1
					continue
				}
			}
		}
		if starP < 0 || strings.IndexByte(stop, s[starI]) >= 0 {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starI:])
		starI += n
		p, i = starP+1, starI
	}
	return strings.Trim(pattern[p:], "*") == ""
}

// shellControl are the characters an allowlist glob's * and ? do not
// match: an allowed command must not grow a second command (;, &&, |), a
// substitution or a redirection inside a wildcard.
const shellControl = ";&|\n`$()<>"

// normalizeGlob brings a configured pattern to the form commands are
// compared in (see shell.Normalize), keeping its * and ? intact.
func normalizeGlob(pattern string) string {
	return strings.TrimSpace(shell.Normalize(pattern))
}

// denyPattern returns the first Deny pattern any part matches.
func (p *Policy) denyPattern(parts []string) (string, bool) {
	for _, pattern := range p.Deny {
		norm := normalizeGlob(pattern)
		if norm == "" {
			continue
		}
		for _, part := range parts {
			if globMatch(norm, part, "") {
				return pattern, true
			}
		}
	}
	return "", false
}

// allowGlob reports whether an Allowlist entry that names no rule is a
// glob matching the whole normalized command.
func (p *Policy) allowGlob(command string) bool {
	for _, entry := range p.Allowlist {
		if _, isRule := ruleKey(entry); !isRule && globMatch(normalizeGlob(entry), command, shellControl) {
			return true
		}
	}
	return false
}

// ruleKey returns the key of the rule an allowlist entry names by key or
// by description (Hermes's own command_allowlist stores descriptions).
func ruleKey(entry string) (string, bool) {
	v, ok := shell.LookupRule(entry)
	return v.Rule, ok
}
