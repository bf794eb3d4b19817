package redact

import "strings"

// contextRules are the secrets known by where they stand rather than by
// their shape: in a URL's user-info or query, in an Authorization or
// API-key header, after curl -u, after a Telegram bot id.
//
// Unlike Hermes Agent, which lets tokens in ordinary web URLs through so
// that the agent can follow magic links and OAuth callbacks, these
// redact credential query parameters and URL passwords everywhere: a
// tool result reaches the model and the logs, and a leaked token costs
// the user the token.
func contextRules() []secretRule {
	return []secretRule{
		// scheme://user:password@host keeps the user; scheme://TOKEN@host
		// (a git remote with a token for user name) hides the token when
		// it looks like one rather than a user name.
		compiled(secretRule{kind: "password", anchors: []string{"://"}, group: 1}, `://[^\s:@/"'\\<>]*:([^\s@/"'\\<>]+)@`),
		vetted(compiled(secretRule{kind: "password", anchors: []string{"://"}, group: 1}, `://([^\s:@/?#"'\\<>]{8,})@`), urlToken),
		// Query and fragment parameters that carry credentials. A value
		// ends at the next parameter, whether after & or ;.
		compiled(secretRule{kind: "query_secret", group: 1, start: queryStart,
			anchors: []string{"token=", "key=", "sig=", "signature=", "secret=", "password=", "passwd=", "credential="}},
			`(?i)[?&;#](?:access_token|refresh_token|id_token|token|api_key|apikey|api-key|key|sig|signature|secret|client_secret|password|passwd|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)=([^&#;\s"'\\<>]+)`),
		// Telegram bot tokens, <bot id>:<secret>, also glued to "bot" in
		// API URLs. Those whose secret starts with AA, the usual form, go
		// whole; otherwise the secret is taken when it mixes cases, and
		// the bot id is kept.
		compiled(secretRule{kind: "telegram_bot_token", anchors: []string{":aa"}, start: digitsBefore(6)},
			`\d{6,16}:AA[0-9A-Za-z_\-]{30,40}\b`),
		vetted(compiled(secretRule{kind: "telegram_bot_token", anchors: []string{"0:", "1:", "2:", "3:", "4:", "5:", "6:", "7:", "8:", "9:"}, start: digitsBefore(8), group: 1},
			`\d{8,16}:([0-9A-Za-z_\-]{30,50})\b`), mixedCase),
		compiled(secretRule{kind: "azure_key", anchors: []string{"accountkey=", "sharedaccesskey="}, group: 1},
			`(?i)(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}=*)`),
		compiled(secretRule{kind: "authorization", anchors: []string{"authorization"}, group: 1},
			`(?i)authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?(?:bearer|basic|token|bot|digest|apikey|key)[ \t]+([A-Za-z0-9._~+/\-]+=*)`),
		vetted(compiled(secretRule{kind: "bearer_token", anchors: []string{"bearer"}, group: 1},
			`(?i)bearer[ \t]+([A-Za-z0-9._~+/\-]{16,}=*)`), func(x match) (string, bool) { return "", hasDigit(x.sub(1)) }),
		compiled(secretRule{kind: "api_key", anchors: []string{"api-key", "x-auth-token", "x-access-token", "private-token", "x-api-token"}, group: 1},
			`(?i)(?:api-key|x-auth-token|x-access-token|private-token|x-api-token)\\?["']?[ \t]*:[ \t]*\\?["']?([^\s"'\\,;]{8,})`),
		compiled(secretRule{kind: "password", anchors: []string{"-u", "--user"}, exact: true, start: afterSpace, group: 1},
			`(?:-u|--user)[ \t]+\\?['"]?[^\s:'"\\]+:([^\s'"\\]+)`),
		compiled(secretRule{kind: "aws_secret_key", anchors: []string{"aws"}, group: 1},
			`(?i)aws_?secret_?access_?key\\?["']?[ \t]*[:=][ \t]*\\?["']?([A-Za-z0-9/+=]{40})`),
	}
}

// urlToken vets the user-info of scheme://TOKEN@host: a credential is
// long, or mixes letters and digits in one run; user names such as git,
// deploy or john.smith are left alone.
func urlToken(x match) (string, bool) {
	s := x.sub(1)
	if strings.ContainsAny(s, ".%[") {
		return "", false
	}
	if len(s) >= 20 {
		return "", true
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return "", false
		}
	}
	return "", hasDigit(s) && hasLetter(s)
}

// mixedCase vets a secret that must have upper- and lower-case letters.
func mixedCase(x match) (string, bool) {
	s := x.sub(x.len() - 1)
	return "", hasUpper(s) && hasLower(s)
}

// len returns the number of submatches, the whole match included.
func (x match) len() int { return len(x.m) / 2 }

// queryStart finds the ?, &, ; or # before the parameter name around an
// anchor "name=".
func queryStart(text string, p int) int {
	for i := p - 1; i >= 0 && p-i <= 40; i-- {
		switch c := text[i]; {
		case c == '?' || c == '&' || c == ';' || c == '#':
			return i
		case !isWordByte(c) && c != '-' && c != '.':
			return -1
		}
	}
	return -1
}

// digitsBefore returns a start function for a match that begins with at
// least n digits before the anchor's colon, not preceded by another
// digit.
func digitsBefore(n int) func(text string, p int) int {
	return func(text string, p int) int {
		p += strings.IndexByte(text[p:], ':')
		i := p
		for i > 0 && p-i < 16 && text[i-1] >= '0' && text[i-1] <= '9' {
			i--
		}
		if p-i < n || i > 0 && text[i-1] >= '0' && text[i-1] <= '9' {
			return -1
		}
		return i
	}
}

// startAfter returns a start function for a match that begins with one
// of prefixes, the longest listed first, just before the anchor.
func startAfter(prefixes ...string) func(text string, p int) int {
	return func(text string, p int) int {
		for _, pre := range prefixes {
			if p >= len(pre) && strings.EqualFold(text[p-len(pre):p], pre) {
				return p - len(pre)
			}
		}
		return -1
	}
}

// afterSpace starts a match at its anchor when the anchor begins a
// command-line word.
func afterSpace(text string, p int) int {
	if p == 0 || strings.IndexByte(" \t\n", text[p-1]) >= 0 {
		return p
	}
	return -1
}
