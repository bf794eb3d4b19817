package redact

import "strings"

// What a value in NAME=value looks like decides, for most names,
// whether it is hidden (see vetAssignment).

// literalValue reports whether value may be a secret's literal value
// rather than a placeholder, a type, a reference to another variable or
// an expression in source code.
func literalValue(name, value string) bool {
	switch strings.ToLower(value) {
	case "null", "none", "nil", "true", "false", "undefined", "redacted", "bearer", "string", "str", "required", "optional",
		"env", "secret", "password", "token", "unknown", "empty",
		// types in annotations and schemas (secret: boolean)
		"int", "bool", "boolean", "number", "float", "double", "bytes", "void", "any", "object", "array", "list", "dict", "date", "datetime", "uuid":
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

// opaqueValue reports whether value looks like a credential by itself:
// long hex, or one run of token characters, long or mixing letter
// cases and digits (cache:user:12345 and ArrowUp do not).
func opaqueValue(value string) bool {
	hex, classes := true, 0
	var lower, upper, digit bool
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
		default:
			hex = false
		}
		switch {
		case isLowerByte(c):
			lower = true
		case isUpperByte(c):
			upper = true
		case c >= '0' && c <= '9', strings.IndexByte("_-+/=.~", c) >= 0:
		default:
			return false
		}
	}
	for _, b := range []bool{lower, upper, digit} {
		if b {
			classes++
		}
	}
	return hex && len(value) >= 16 || len(value) >= 20 || len(value) >= 12 && classes >= 2
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
