package redact

import "strings"

// assignmentRule finds NAME=value, NAME: value, "name": "value" and
// name = "value" where the name says secret, in environment dumps,
// config files (dotted keys too), JSON, YAML and command lines.
//
// Names differ in how sure they are. A strong name (password, secret,
// client_secret, api_key, id_token, key_material, bearer) hides any
// value. An ambiguous one (token, key) also names model limits, tensors
// and cache keys, so its value is hidden only when it looks like a
// credential: runtime.token=local and {"token": "CPU"} stay as they are.
// Code and prose are not assignments of secrets: a value that is an
// expression (os.getenv(...), settings.api_key, $API_KEY), and an
// unquoted word after a name in a sentence (I have password=foo, const
// secret = await fetchSecret()), stay too.
func assignmentRule() secretRule {
	return vetted(compiled(secretRule{kind: "secret", group: 4, start: assignmentStart, word: true,
		anchors: []string{"key", "token", "secret", "pass", "pw", "credential", "bearer"}},
		`(?i)((?:key|token|secret|pass|pw|credential|bearer)[A-Za-z0-9_]*)(\\?["'])?[ \t]*[:=][ \t]*(\\?["'])?([^\s"'\\<>\[\]{}(),;&]+)`), vetAssignment)
}

// assignmentStart is a quick check that the name around an anchor at p
// says secret and is followed by : or =, before the expression is
// tried.
func assignmentStart(text string, p int) int {
	i := p
	for i < len(text) && isWordByte(text[i]) {
		i++
	}
	j := i
	if i < len(text) && text[i] == '\\' {
		i++
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i == len(text) || text[i] != ':' && text[i] != '=' {
		return -1
	}
	if _, ok := secretNameKind(text[nameStart(text, p):j]); !ok {
		return -1
	}
	return p
}

// vetAssignment decides on a NAME=value match: submatch 1 is the name
// from its keyword on, 2 a quote closing the name, 3 one opening the
// value, 4 the value.
func vetAssignment(x match) (string, bool) {
	text := x.text
	j := nameStart(text, x.m[2])
	name, value := text[j:x.m[3]], x.sub(4)
	strong, ok := secretNameKind(name)
	if !ok || !literalValue(name, value) {
		return "", false
	}
	if end := x.m[9]; end < len(text) && (text[end] == '(' || text[end] == '[') {
		return "", false // a call or an index: code
	}
	if pathValue(value) && !passwordName(name) {
		return "", false
	}
	kind := assignmentKind(name)
	colon := strings.IndexByte(text[x.m[3]:x.m[8]], ':') >= 0
	switch {
	case colon && x.m[4] < 0 && !startsLine(text, j):
		// name: value inside a line is prose or a log line (--- PASS:
		// TestX, Generated token: …) unless the value is opaque.
		return kind, opaqueValue(value)
	case !colon && inSentence(text, j):
		return kind, !plainValue(value)
	case strong:
		return kind, true
	case ambiguousName(name):
		return kind, opaqueValue(value)
	}
	return kind, !plainValue(value)
}

// nameStart widens a name back from its keyword at text[p] to the whole
// name (OPENAI_API_KEY, spring.datasource.password).
func nameStart(text string, p int) int {
	for p > 0 && (isWordByte(text[p-1]) || text[p-1] == '.' || text[p-1] == '-') && !afterEscape(text, p) {
		p--
	}
	return p
}

// inSentence reports whether the name starting at text[j] follows a
// plain word on its line, as in prose (I have password=foo) or a
// declaration (const secret = …), rather than starting the line or
// following a shell's export or a separator.
func inSentence(text string, j int) bool {
	i := trimBack(text, j, " \t")
	if i == j || i == 0 {
		return false
	}
	k := i
	for k > 0 && (isLowerByte(text[k-1]) || isUpperByte(text[k-1])) {
		k--
	}
	if k == i || k > 0 && !strings.ContainsRune(" \t\n\r", rune(text[k-1])) || afterEscape(text, k) {
		return false
	}
	switch strings.ToLower(text[k:i]) {
	case "export", "declare", "set", "local", "readonly", "typeset", "setenv", "env":
		return false
	}
	return true
}

// startsLine reports whether the name starting at text[j] starts its
// line: after indentation, a list's "- ", a line-number gutter such as
// cat -n, grep -n and read_file print ("     7\t", "6:", "5|"), or in a
// flow mapping after { or ,.
func startsLine(text string, j int) bool {
	i := trimBack(text, j, " \t")
	if i > 0 {
		c, d := text[i-1], trimBack(text, i-1, "0123456789")
		switch {
		case c == '-', (c == '|' || c == ':') && d < i-1:
			i = trimBack(text, d, " \t")
		case c >= '0' && c <= '9' && i < j && text[i] == '\t':
			i = trimBack(text, trimBack(text, i, "0123456789"), " ")
		}
	}
	return i == 0 || strings.IndexByte("\n\r{,", text[i-1]) >= 0 || afterEscape(text, i)
}

// trimBack returns where the run of bytes in set that ends at text[e]
// starts.
func trimBack(text string, e int, set string) int {
	for e > 0 && strings.IndexByte(set, text[e-1]) >= 0 {
		e--
	}
	return e
}

// ambiguousName reports whether a name is only "key" or "keys": cache,
// map and event keys are named so too.
func ambiguousName(name string) bool {
	words := nameWords(name)
	return len(words) == 1 && (strings.EqualFold(words[0], "key") || strings.EqualFold(words[0], "keys"))
}

// assignmentKind names a NAME=value secret after what its name says.
func assignmentKind(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "pass") || strings.Contains(n, "pw"):
		return "password"
	case strings.Contains(n, "token"):
		return "token"
	case strings.Contains(n, "key"):
		return "key"
	}
	return "secret"
}
