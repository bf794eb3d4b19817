package redact

import "strings"

// secretNameKind reports whether a variable, key or field name says it
// holds a secret (ok), and whether it says so for sure (strong) or only
// may (token, key). A keyword counts only as a whole word of the name:
// words are split at _ . - and case changes (clientSecret, APIToken), so
// KEYBOARD, Secretary, tokenizer and PASSAGE are not secret names. Names
// about a secret rather than holding one (token_count, max_tokens,
// secret_name, password_file, key_id, sort_key) are not either.
func secretNameKind(name string) (strong, ok bool) {
	words := nameWords(name)
	for i, w := range words {
		l := strings.ToLower(w)
		if aboutSecret(l) || l == "id" && !(i+1 < len(words) && isTokenOrKey(strings.ToLower(words[i+1]))) {
			return false, false
		}
	}
	for i, w := range words {
		l := strings.ToLower(w)
		switch {
		case (l == "pass" || l == "pw") && len(words) == 1:
			// PASS alone is more often a test result than a password.
		case strongWord(l):
			return true, true
		case isTokenOrKey(l):
			if i+1 < len(words) && strings.EqualFold(words[i+1], "material") {
				return true, true
			}
			if i > 0 {
				prev := strings.ToLower(words[i-1])
				if strongQualifier(prev) {
					return true, true
				}
				if l != "token" && plainKey(prev) {
					continue
				}
			}
			ok = true
		case len(w) > 5 && strings.ToUpper(w) == w:
			// ALL-CAPS names may run words together (GITHUBTOKEN).
			for _, suffix := range []string{"PASSWORD", "PASSWD", "SECRET", "APIKEY"} {
				if strings.HasSuffix(w, suffix) {
					return true, true
				}
			}
			ok = ok || strings.HasSuffix(w, "TOKEN")
		}
	}
	return false, ok
}

// passwordName reports whether a name says password: such a name hides
// even a value shaped like a path.
func passwordName(name string) bool {
	for _, w := range nameWords(name) {
		switch strings.ToLower(w) {
		case "password", "passwords", "passwd", "pass", "pw", "passphrase":
			return true
		}
	}
	return false
}

func isTokenOrKey(w string) bool { return w == "token" || w == "key" || w == "keys" }

// strongWord reports whether a name with this word holds a secret
// whatever the value looks like.
func strongWord(w string) bool {
	switch w {
	case "secret", "secrets", "password", "passwords", "passwd", "pass", "pw", "passphrase",
		"credential", "credentials", "bearer", "apikey", "apikeys", "accesskey", "secretkey", "privatekey",
		"authtoken", "accesstoken", "refreshtoken", "clientsecret":
		return true
	}
	return false
}

// strongQualifier reports whether the word makes the token or key after
// it a credential (api_key, id_token, client_key).
func strongQualifier(w string) bool {
	switch w {
	case "api", "auth", "access", "refresh", "session", "id", "private", "client", "signing",
		"master", "encryption", "secret", "bearer", "app", "bot", "webhook", "deploy", "personal":
		return true
	}
	return false
}

// plainKey reports whether the word makes the key after it a database
// or map key (sort_key, primary_key).
func plainKey(w string) bool {
	switch w {
	case "sort", "primary", "foreign", "cache", "partition", "hash", "range", "group", "lookup",
		"map", "dict", "composite", "unique", "row", "index", "hot", "short", "sub", "public", "pub",
		"idempotency", "dedup", "dedupe", "object", "lock", "route", "cursor", "shard", "cluster", "join":
		return true
	}
	return false
}

// aboutSecret reports whether the word makes a name about a secret
// rather than one (token_count, secret_name, password_file).
func aboutSecret(w string) bool {
	switch w {
	case "tokens", "count", "counts", "limit", "limits", "budget", "len", "length", "size",
		"max", "min", "num", "type", "path", "file", "filename", "dir", "env", "name", "names", "url", "uri",
		"endpoint", "expires", "expiry", "expiration", "ttl", "timeout", "header", "field", "prefix",
		"format", "version", "policy", "index", "idx", "usage", "rotation", "provider", "store":
		return true
	}
	return false
}

// nameWords splits a name into its words at _ . - and case changes:
// "OPENAI_API_KEY" → OPENAI API KEY, "clientSecret" → client Secret,
// "APIToken" → API Token, "app.api.key" → app api key.
func nameWords(name string) []string {
	var words []string
	start := -1
	for i := 0; i <= len(name); i++ {
		var c byte
		if i < len(name) {
			c = name[i]
		}
		if !isWordByte(c) || c == '_' {
			if start >= 0 {
				words = append(words, name[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := name[i-1]
		if isUpperByte(c) && (isLowerByte(prev) || isUpperByte(prev) && i+1 < len(name) && isLowerByte(name[i+1])) {
			words = append(words, name[start:i])
			start = i
		}
	}
	return words
}

func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }
