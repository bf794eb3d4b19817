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

// secretName matches the tail of a shell variable that holds a credential.
const secretName = `[a-z0-9_]*(?:api_?key|token|secret|passw(?:or)?d|credential|private_key|access_key|auth)[a-z0-9_]*`

// headerArg matches a request header given to curl and its kin. A
// credential in a header goes to the server the command names, which is
// how every API is called (`-H "Authorization: Bearer $GITHUB_TOKEN"`), so
// the exfiltration patterns look at the rest of the line.
var headerArg = lazy.Regexp{Expr: `(?:^|\s)(?:-h|--header)[\s=]*(?:"[^"\n]*"|'[^'\n]*'|\S+)`}

// netTool matches a program that sends data over the network.
const netTool = `(?:curl|wget|nc|ncat|netcat|socat|httpie|xh|scp|rsync|invoke-webrequest|invoke-restmethod|iwr|irm)`

// injectionPatterns are compiled on first use, so that programs that never
// scan pay nothing for them at start-up.
var injectionPatterns = lazy.Value[[]injectionPattern]{New: func() []injectionPattern {
	return []injectionPattern{
		{"instruction override", regexp.MustCompile(`\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|every|of|the|your|my|these|those)\s+)*(?:previous|prior|above|earlier|preceding|foregoing|former|original|system|initial)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|context|messages?|commands)`), true, []string{"ignore", "disregard", "forget", "override", "bypass"}},
		{"instruction override", regexp.MustCompile(`\b(?:ignore|disregard|forget)\s+(?:all|any|every)\s+(?:of\s+)?(?:your\s+|the\s+|my\s+)?(?:instructions|rules|guidelines|directives|restrictions)`), true, []string{"ignore", "disregard", "forget"}},
		{"instruction override", regexp.MustCompile(`\b(?:disregard|ignore|forget)\s+(?:your|the)\s+(?:instructions|system\s+prompt|guidelines|safety\s+rules|programming)`), true, []string{"ignore", "disregard", "forget"}},
		{"instruction override", regexp.MustCompile(`\bsystem\s+prompt\s+override\b|\boverride\s+(?:the\s+|your\s+)?system\s+prompt\b`), true, []string{"override"}},
		{"instruction override", regexp.MustCompile(`(?:^|[\s>#-])(?:new|updated|real|actual)\s+(?:system\s+)?instructions\s*:`), true, []string{"instructions"}},
		{"role hijack", regexp.MustCompile(`\byou\s+are\s+now\s+(?:an?\b|no\s+longer|free|unrestricted|unfiltered|jailbroken|dan\b|in\s+\w+\s+mode|acting\s+as|operating\s+(?:as|in|without))`), true, []string{"you are now"}},
		{"restriction bypass", regexp.MustCompile(`\b(?:act|behave|respond|operate|pretend)\s+(?:as|like)\s+[^.\n]{0,60}?\b(?:without|with\s+no|free\s+of)\s+(?:any\s+)?(?:restrictions|limits|limitations|filters|rules|guidelines|censorship|safety)`), true, []string{"without", "with no", "free of"}},
		{"restriction bypass", regexp.MustCompile(`\b(?:act|behave)\s+as\s+(?:if|though)\s+you\s+(?:have\s+no|don'?t\s+have|had\s+no)\s+(?:restrictions|limits|rules|guidelines)`), true, []string{"as if", "as though"}},
		{"deception", regexp.MustCompile(`\b(?:do\s+not|don'?t|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|reveal(?:ing)?\s+(?:this|it)\s+to)\s+the\s+user\b`), true, []string{"the user"}},
		{"prompt extraction", regexp.MustCompile(`\b(?:reveal|print|repeat|output|leak|disclose)\s+your\s+(?:system\s+prompt|initial\s+instructions|hidden\s+instructions)`), true, []string{"your"}},
		{"fake role marker", regexp.MustCompile(`<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>|\[/?inst\]|<</?sys>>|</?system>|(?m:^[ \t]*#{1,6}[ \t]*system(?:[ \t]+prompt)?[ \t]*:)`), false, []string{"<|", "inst]", "<<", "system"}},
		{"hidden HTML element", regexp.MustCompile(`<(?:div|span|p|section)\b[^>]*style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)`), false, []string{"style"}},
		{"exfiltration", regexp.MustCompile(`\b` + netTool + `\b[^\n]*\$\{?` + secretName), false, []string{"$"}},
		{"exfiltration", regexp.MustCompile(`\b(?:env|printenv|export\s+-p)\s*\|\s*(?:base64\s*\|\s*)?` + netTool + `\b`), false, []string{"|"}},
		{"exfiltration", regexp.MustCompile(`\b` + netTool + `\b[^\n]*\$\(\s*(?:env|printenv)\s*\)`), false, []string{"$("}},
	}
}}

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
)

// scanComments reports an HTML comment that carries instructions: the text
// is invisible in rendered Markdown, so nobody reviewing the page sees it.
func scanComments(lower string) (string, bool) {
	for _, m := range htmlComment.Get().FindAllStringSubmatch(lower, -1) {
		body := m[1]
		if (commentVerb.Get().MatchString(body) && commentObject.Get().MatchString(body)) || commentSecret.Get().MatchString(body) {
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
