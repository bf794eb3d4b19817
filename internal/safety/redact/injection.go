package redact

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/hermes-go/hermes/internal/lazy"
)

// ScanInjection looks for prompt injection in text that hermes is about to
// place where the model treats it as trusted: project context files
// (AGENTS.md, CLAUDE.md, .cursorrules) in the system prompt, memory entries
// and skills. It reports the first problem found, in a reason such as
// `invisible Unicode U+200B at offset 120` or
// `instruction override: "ignore previous instructions"`.
//
// It detects invisible and direction-changing characters (which hide text
// from the person reviewing a file), phrases that try to override earlier
// instructions, fake chat-template role markers, HTML comments that carry
// instructions, and commands that send secrets or keys to the network.
// Matching is case-insensitive and runs on the NFKC form of the text, so
// full-width or ligature spellings do not slip through. Offsets are byte
// offsets into text as given.
//
// The patterns are deliberately narrow: context files are full of ordinary
// imperatives ("ignore files in .gitignore", "act as a reviewer"), and a
// scanner that cries wolf on them would be switched off. Each pattern needs
// an object that only makes sense as an attack (previous instructions,
// without restrictions, the user, a secret variable).
func ScanInjection(text string) (reason string, found bool) {
	if r, ok := scanInvisible(text); ok {
		return r, true
	}
	lower := strings.ToLower(norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD")))
	prose := proseForm(lower)
	sent := headerArg.Get().ReplaceAllString(lower, " ")
	for _, p := range injectionPatterns.Get() {
		src := lower
		switch {
		case p.prose:
			src = prose
		case p.what == "exfiltration":
			src = sent
		}
		if !slices.ContainsFunc(p.hints, func(h string) bool { return strings.Contains(src, h) }) {
			continue
		}
		if m := p.re.FindString(src); m != "" {
			return fmt.Sprintf("%s: %q", p.what, excerpt(m)), true
		}
	}
	if r, ok := scanComments(lower); ok {
		return r, true
	}
	if r, ok := scanSecretFiles(lower); ok {
		return r, true
	}
	if m := secretRead.Get().FindString(lower); m != "" {
		return fmt.Sprintf("secret file read: %q", excerpt(m)), true
	}
	return "", false
}

// injectionPattern is one regular expression with the kind of attack it
// names. Prose patterns run on the text with Markdown emphasis removed and
// whitespace collapsed, so "**ignore** all\nprevious instructions" matches.
type injectionPattern struct {
	what  string
	re    *regexp.Regexp
	prose bool
	// hints are substrings one of which every match contains; a text
	// holding none of them skips the (much slower) regular expression.
	hints []string
}

// proseForm removes Markdown emphasis and code marks and collapses runs of
// whitespace, so phrase patterns see the words a reader sees.
func proseForm(s string) string {
	s = strings.NewReplacer("*", "", "`", "", "_", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// excerpt shortens a match for a reason line: whitespace collapsed, at most
// 80 runes.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:77]) + "..."
	}
	return s
}

// htmlComment matches one HTML comment, across lines.
var htmlComment = lazy.Regexp{Expr: `(?s)<!--(.*?)-->`}

// commentVerb and commentObject together mark a comment that tells the
// reader (the model) to drop its rules; "prettier-ignore" or
// "markdownlint-disable" have neither a free-standing verb nor an object.
var (
	commentVerb   = lazy.Regexp{Expr: `(?:^|[\s:,.;(])(?:ignore|disregard|override|bypass|forget)\s+\S`}
	commentObject = lazy.Regexp{Expr: `\b(?:instructions?|prompt|rules|guidelines|restrictions|previous|above|prior|the\s+user|safety|system)\b`}
	commentSecret = lazy.Regexp{Expr: `\b(?:do\s+not|don'?t|never)\s+(?:tell|mention|reveal|show)\b|\bsecretly\b`}
	// commentDirective is a comment that sets the model's instructions
	// as a key: "<!-- system_prompt: ... -->", "<!-- new instructions -->".
	commentDirective = lazy.Regexp{Expr: `(?:^|[\s:,.;(])(?:system\s+prompt|system\s+instructions?|new\s+instructions?|developer\s+mode|jailbreak)\s*(?::|=|$)`}
)

// scanComments reports an HTML comment that carries instructions: the text
// is invisible in rendered Markdown, so nobody reviewing the page sees it.
func scanComments(lower string) (string, bool) {
	for _, m := range htmlComment.Get().FindAllStringSubmatch(lower, -1) {
		// Directives are often written as keys: ignore_rules,
		// system-prompt.
		body := strings.TrimSpace(strings.NewReplacer("_", " ", "-", " ").Replace(m[1]))
		if (commentVerb.Get().MatchString(body) && commentObject.Get().MatchString(body)) || commentSecret.Get().MatchString(body) ||
			commentDirective.Get().MatchString(body) {
			return fmt.Sprintf("hidden HTML comment with instructions: %q", excerpt(m[0])), true
		}
	}
	return "", false
}

// secretFile matches a path that holds private keys or credentials; public
// keys (id_ed25519.pub) and templates (.env.example) are left out.
var secretFile = lazy.Regexp{Expr: `(?:~|\$home|/root|/home/\w+)/\.ssh/(?:id_\w+|[\w-]+\.pem)\b(?:[^.]|$)|\.ssh/id_(?:rsa|dsa|ecdsa|ed25519)\b(?:[^.]|$)|(?:^|[\s"'=@/])\.env(?:$|[\s"'|;>)])|\.netrc\b|\.pgpass\b|\.aws/credentials\b|\.git-credentials\b|/etc/shadow\b`}

// sendsData matches what, on the same line, takes a secret file somewhere
// else: a pipe, a network program or a URL.
var sendsData = lazy.Regexp{Expr: `\|\s*\S|\b` + netTool + `\b|https?://`}

// scanSecretFiles reports a line that reads a private key or credential
// file and pipes or sends it on, such as `cat ~/.ssh/id_rsa | curl -d @- …`
// or `curl -F f=@.env https://…`. Mentioning the files alone is ordinary
// documentation ("copy .env.example to .env").
func scanSecretFiles(lower string) (string, bool) {
	for line := range strings.Lines(lower) {
		loc := secretFile.Get().FindStringIndex(line)
		if loc == nil {
			continue
		}
		if sendsData.Get().MatchString(line) {
			return fmt.Sprintf("exfiltration: %q", excerpt(line)), true
		}
	}
	return "", false
}

// scanInvisible reports the first character that renders as nothing or
// reorders the text around it. A BOM at the very start, a zero-width
// joiner or non-joiner between emoji or between letters of scripts that
// need them, and the tag sequence of a subdivision flag are legitimate.
func scanInvisible(text string) (string, bool) {
	var prev rune
	for i, r := range text {
		if invisible(r) && !allowedInvisible(text, i, r, prev) {
			return fmt.Sprintf("invisible Unicode U+%04X at offset %d", r, i), true
		}
		prev = r
	}
	return "", false
}

// invisible reports the zero-width, bidi-control and tag characters.
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200D, r == 0x2060, r == 0xFEFF,
		r >= 0x2061 && r <= 0x2064, // invisible math operators
		r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069,
		r >= 0xE0000 && r <= 0xE007F:
		return true
	}
	return false
}

// allowedInvisible reports the legitimate uses listed on scanInvisible.
func allowedInvisible(text string, i int, r, prev rune) bool {
	switch {
	case r == 0xFEFF:
		return i == 0
	case r == 0x200C || r == 0x200D:
		next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
		return (pictographic(prev) && (pictographic(next) || r == 0x200D)) ||
			(complexScript(prev) && complexScript(next))
	case r >= 0xE0020 && r <= 0xE007F:
		// A subdivision flag: U+1F3F4 followed by tag letters and U+E007F.
		return prev == 0x1F3F4 || (prev >= 0xE0020 && prev <= 0xE007E)
	}
	return false
}

// pictographic approximates Extended_Pictographic: the emoji blocks and the
// variation selector that ends many emoji.
func pictographic(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r == 0xFE0F
}

// complexScript reports letters and marks of non-Latin scripts, where
// joiners and non-joiners shape words (Persian, Indic scripts).
func complexScript(r rune) bool {
	return r > 0x036F && (unicode.IsLetter(r) || unicode.IsMark(r))
}
