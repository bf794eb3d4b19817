package tool

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// NormalizeDate rewrites a calendar date written in a common form as
// YYYY-MM-DD, the form JSON Schema's "date" format requires. It accepts
// 2024年1月1日 (also with 号 and full-width digits), 2024-1-1, 2024/1/1,
// 2024.1.1, Jan 1 2024, January 1, 2024, 1 Jan 2024, Monday, 1st of
// January 2024, and an RFC 3339 timestamp (its date part). Forms whose
// order is ambiguous, such as 01/02/2024 (January 2 in the US, February 1
// elsewhere), are refused rather than guessed, as are dates that do not
// exist.
func NormalizeDate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.Format("2006-01-02"), true
	}
	toks := dateTokens(s)
	var y, m, d int
	switch {
	case len(toks) >= 5 && toks[1].text == "年" && toks[3].text == "月" &&
		(len(toks) == 5 || len(toks) == 6 && (toks[5].text == "日" || toks[5].text == "号")):
		y, m, d = toks[0].num(4), toks[2].num(2), toks[4].num(2)
	case len(toks) != 3:
		return "", false
	case toks[0].isNum(4) && toks[1].isNum(2) && toks[2].isNum(2):
		y, m, d = toks[0].num(4), toks[1].num(2), toks[2].num(2)
	case toks[0].month() > 0 && toks[1].isNum(2) && toks[2].isNum(4):
		m, d, y = toks[0].month(), toks[1].num(2), toks[2].num(4)
	case toks[0].isNum(2) && toks[1].month() > 0 && toks[2].isNum(4):
		d, m, y = toks[0].num(2), toks[1].month(), toks[2].num(4)
	case toks[0].isNum(4) && toks[1].month() > 0 && toks[2].isNum(2):
		y, m, d = toks[0].num(4), toks[1].month(), toks[2].num(2)
	default:
		return "", false
	}
	if y < 1000 || m < 1 || m > 12 || d < 1 {
		return "", false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d || int(t.Month()) != m {
		return "", false
	}
	return t.Format("2006-01-02"), true
}

// dateToken is a run of digits, a run of letters, or one CJK date marker.
type dateToken struct {
	text  string
	digit bool
}

// isNum reports whether the token is a number of 1 to max digits, or of
// exactly 4 digits when max is 4 (a year).
func (t dateToken) isNum(max int) bool {
	if !t.digit {
		return false
	}
	if max == 4 {
		return len(t.text) == 4
	}
	return len(t.text) >= 1 && len(t.text) <= max
}

// num returns the token's value, or -1 when it is not a number of the
// expected width.
func (t dateToken) num(max int) int {
	if !t.isNum(max) {
		return -1
	}
	n, _ := strconv.Atoi(t.text)
	return n
}

// month returns 1–12 for an English month name or abbreviation, else 0.
func (t dateToken) month() int {
	if t.digit || len(t.text) < 3 {
		return 0
	}
	names := [12]string{"january", "february", "march", "april", "may", "june",
		"july", "august", "september", "october", "november", "december"}
	for i, name := range names {
		if strings.HasPrefix(name, t.text) && (len(t.text) == 3 || t.text == name || t.text == "sept") {
			return i + 1
		}
	}
	return 0
}

// isFiller reports whether a word may surround a date's parts without
// changing it: ordinal suffixes, "of" and weekday names.
func isFiller(w string) bool {
	switch w {
	case "st", "nd", "rd", "th", "of",
		"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
		"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday":
		return true
	}
	return false
}

// dateTokens splits s into numbers, lower-case words and the markers 年, 月,
// 日 and 号, dropping separators, ordinal suffixes and weekday names.
// Full-width digits count as digits.
func dateTokens(s string) []dateToken {
	var toks []dateToken
	var cur []rune
	curDigit := false
	flush := func() {
		if len(cur) > 0 {
			text := string(cur)
			if curDigit || !isFiller(text) {
				toks = append(toks, dateToken{text: text, digit: curDigit})
			}
		}
		cur = cur[:0]
	}
	for _, r := range s {
		if r >= '０' && r <= '９' {
			r = '0' + (r - '０')
		}
		switch {
		case r >= '0' && r <= '9':
			if !curDigit {
				flush()
			}
			curDigit = true
			cur = append(cur, r)
		case r < unicode.MaxASCII && unicode.IsLetter(r):
			if curDigit {
				flush()
			}
			curDigit = false
			cur = append(cur, unicode.ToLower(r))
		case r == '年' || r == '月' || r == '日' || r == '号':
			flush()
			toks = append(toks, dateToken{text: string(r)})
		case r == ' ' || r == ',' || r == '-' || r == '/' || r == '.' || r == '\u3000':
			flush()
		default:
			// Anything else (a time of day, a stray symbol) means this is
			// not a plain date.
			return nil
		}
	}
	flush()
	return toks
}
