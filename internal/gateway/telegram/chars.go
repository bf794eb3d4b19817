package telegram

import "strings"

// These small matchers stand in for regular expressions, so that the
// package compiles nothing when the program starts.

// isToken reports whether s looks like a bot token: digits, a colon, then
// letters, digits, '_' and '-'.
func isToken(s string) bool {
	id, secret, ok := strings.Cut(s, ":")
	return ok && id != "" && strings.Trim(id, "0123456789") == "" && secret != "" && onlyOf(secret, isTokenChar)
}

// isCommand reports whether s is a command name Telegram takes: 1 to 32
// of a-z, 0-9 and '_'.
func isCommand(s string) bool {
	return len(s) >= 1 && len(s) <= 32 && onlyOf(s, func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' })
}

// isLang reports whether s can name a code block's language in a class
// attribute: 1 to 32 of letters, digits and "_+#.-".
func isLang(s string) bool {
	return len(s) >= 1 && len(s) <= 32 && onlyOf(s, func(c byte) bool { return isTokenChar(c) || strings.IndexByte("+#.", c) >= 0 })
}

func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func onlyOf(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// heading returns the text of a Markdown heading line ("## Title").
func heading(line string) (string, bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return "", false
	}
	hashes := len(t) - len(strings.TrimLeft(t, "#"))
	rest := t[hashes:]
	if hashes < 1 || hashes > 6 || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if trimmed := strings.TrimRight(rest, "#"); trimmed == "" || strings.HasSuffix(trimmed, " ") {
		rest = strings.TrimSpace(trimmed)
	}
	return rest, rest != ""
}

// bullet splits a list item line ("  - item") into its indent and text.
func bullet(line string) (indent, text string, ok bool) {
	t := strings.TrimLeft(line, " \t")
	if len(t) < 2 || strings.IndexByte("-*+", t[0]) < 0 || (t[1] != ' ' && t[1] != '\t') {
		return "", "", false
	}
	return line[:len(line)-len(t)], strings.TrimLeft(t[2:], " \t"), true
}

// isRule reports whether line is a thematic break ("---", "* * *").
func isRule(line string) bool {
	t := strings.ReplaceAll(strings.TrimSpace(line), " ", "")
	return len(t) >= 3 && len(line)-len(strings.TrimLeft(line, " ")) <= 3 &&
		(strings.Trim(t, "-") == "" || strings.Trim(t, "*") == "" || strings.Trim(t, "_") == "")
}
