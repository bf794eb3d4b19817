package config

import (
	"strconv"
	"strings"
	"time"
)

// A plain (unquoted) scalar's type is told from its text: "3" is an
// integer, "true" a boolean, "" and "~" null, anything else a string. The
// rules here are those config.yaml files have been read and written by all
// along (YAML 1.2's core schema with YAML 1.1's octal "0777", base 60 left
// out, and dates recognised), so a value that was written quoted stays
// quoted and "yes" stays a string. They are code rather than regular
// expressions so that a process that never reads YAML pays nothing for
// them at start-up.

// resolveTag returns the tag a plain scalar with text s has.
func resolveTag(s string) string {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return boolTag
	case "", "~", "null", "Null", "NULL":
		return nullTag
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return floatTag
	case "<<":
		return mergeTag
	}
	switch c := s[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return floatTag
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		return resolveNumber(s)
	}
	return strTag
}

// resolveNumber tells integers, floats and dates from strings among texts
// that begin with a sign or a digit.
func resolveNumber(s string) string {
	if isTimestamp(s) {
		return timestampTag
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return intTag
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return intTag
	}
	if isDecimalFloat(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return floatTag
		}
	}
	for _, p := range []struct {
		prefix string
		base   int
	}{{"0b", 2}, {"-0b", 2}, {"0o", 8}, {"-0o", 8}} {
		if digits, ok := strings.CutPrefix(plain, p.prefix); ok {
			if p.prefix[0] == '-' {
				digits = "-" + digits
			}
			if _, err := strconv.ParseInt(digits, p.base, 64); err == nil {
				return intTag
			}
			if _, err := strconv.ParseUint(digits, p.base, 64); err == nil && p.prefix[0] != '-' {
				return intTag
			}
		}
	}
	return strTag
}

// isDecimalFloat reports whether s has the form
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
func isDecimalFloat(s string) bool {
	digits := func(i int) int {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i
	}
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && s[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return false
		}
		i = j
	} else {
		j := digits(i)
		if j == i {
			return false
		}
		i = j
		if i < len(s) && s[i] == '.' {
			i = digits(i + 1)
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

// timestampFormats are the date forms a plain scalar is read as a date in.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp reports whether s is a date, such as 2001-12-14.
func isTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range timestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}
