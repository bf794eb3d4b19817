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
	return vetted(compiled(secretRule{kind: "secret", group: 4, start: assignmentStart,
		anchors: []string{"key", "token", "secret", "pass", "pw", "credential", "bearer"}},
		`(?i)((?:key|token|secret|pass|pw|credential|bearer)[A-Za-z0-9_]*)(\\?["'])?[ \t]*[:=][ \t]*(\\?["'])?([^\s"'\\<>\[\]{}(),;&]+)`), vetAssignment)
}

// assignmentStart is a quick check that the name around an anchor at p
// is followed by : or =, before the expression is tried.
func assignmentStart(text string, p int) int {
	i := p
	for i < len(text) && isWordByte(text[i]) {
		i++
	}
	if i < len(text) && text[i] == '\\' {
		i++
	}
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i < len(text) && (text[i] == ':' || text[i] == '=') {
		return p
	}
	return -1
}

func vetAssignment(x match) (string, bool) {
	text := x.text
	// The name is widened back from the keyword to the whole name
	// (OPENAI_API_KEY, spring.datasource.password).
	j := x.m[2]
	for j > 0 && (isWordByte(text[j-1]) || text[j-1] == '.' || text[j-1] == '-') && !afterEscape(text, j) {
		j--
	}
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
	if strong && (x.m[6] >= 0 || !inSentence(text, j)) {
		return kind, true
	}
	return kind, !plainValue(value)
}

// literalValue reports whether value may be a secret's literal value
// rather than a placeholder, a type, a reference to another variable or
// an expression in source code.
func literalValue(name, value string) bool {
	switch strings.ToLower(value) {
	case "null", "none", "nil", "true", "false", "undefined", "redacted", "bearer", "string", "str", "required", "optional",
		"env", "secret", "password", "token", "int", "bool", "any", "object", "unknown", "empty":
		return false
	}
	if strings.EqualFold(value, name) || codeReference(value) {
		return false
	}
	switch value[0] {
	case '<', '=', ':', '*', '%':
		return false
	case '$': // $VAR, ${VAR}, $(cmd; but $2b$… is a password hash
		return len(value) > 1 && !(value[1] == '_' || value[1] == '{' || hasLetter(value[1:2]))
	}
	return true
}

// codeReference reports whether value reads like an expression in source
// code rather than a literal: identifiers joined by dots
// (settings.api_key, process.env.API_KEY, os.getenv), or a lower-case
// snake_case name (api_key_value).
func codeReference(value string) bool {
	if strings.Contains(value, ".") {
		for _, seg := range strings.Split(value, ".") {
			if seg == "" || !(seg[0] == '_' || seg[0] >= 'a' && seg[0] <= 'z' || seg[0] >= 'A' && seg[0] <= 'Z') {
				return false
			}
			for i := 0; i < len(seg); i++ {
				if !isWordByte(seg[i]) {
					return false
				}
			}
		}
		return true
	}
	if !strings.Contains(value, "_") {
		return false
	}
	for _, c := range value {
		if !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// pathValue reports whether value is a file path (/home/u/.docker,
// ~/.ssh/id_rsa) rather than a secret that happens to start with a
// slash: no segment is long and mixes cases and digits.
func pathValue(value string) bool {
	if !strings.HasPrefix(value, "/") && !strings.HasPrefix(value, "~/") {
		return false
	}
	for _, seg := range strings.Split(value, "/") {
		if len(seg) >= 16 && !strings.Contains(seg, ".") && hasUpper(seg) && hasLower(seg) && hasDigit(seg) {
			return false
		}
	}
	return true
}

// inSentence reports whether the name starting at text[j] follows a
// plain word on its line, as in prose (I have password=foo) or a
// declaration (const secret = …), rather than starting the line or
// following a shell's export or a separator.
func inSentence(text string, j int) bool {
	i := j
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	if i == j || i == 0 {
		return false
	}
	k := i
	for k > 0 && (text[k-1] >= 'a' && text[k-1] <= 'z' || text[k-1] >= 'A' && text[k-1] <= 'Z') {
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

// plainValue reports whether value is obviously not a credential: a
// short word in one case or capitalized (local, CPU, Name), a small
// number, or short lower-case words joined by - or _.
func plainValue(value string) bool {
	if len(value) >= 20 {
		return false
	}
	letters, digits, lower, upper, seps := 0, 0, 0, 0, 0
	for i := 0; i < len(value); i++ {
		switch c := value[i]; {
		case c >= 'a' && c <= 'z':
			letters++
			lower++
		case c >= 'A' && c <= 'Z':
			letters++
			upper++
		case c >= '0' && c <= '9':
			digits++
		case c == '-' || c == '_':
			seps++
		default:
			return false
		}
	}
	switch {
	case digits == len(value):
		return len(value) < 10
	case letters == len(value):
		return lower == 0 || upper == 0 || upper == 1 && value[0] >= 'A' && value[0] <= 'Z'
	case digits == 0 && upper == 0:
		return value[0] != '-' && value[0] != '_'
	}
	return false
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
