package memory

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/tool"
)

// Delimiter separates entries in MEMORY.md and USER.md. It is Hermes
// Agent's, so a ~/.hermes/memories written by Hermes is read as it is and
// Hermes reads what hermes writes.
const Delimiter = "\n§\n"

// crlf matches a line end written with one or more carriage returns.
var crlf = lazy.Regexp{Expr: `\r+\n`}

// unixLines turns every CRLF (and CR CR LF) line end into LF.
func unixLines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return crlf.Get().ReplaceAllString(s, "\n")
}

// parse splits a file's text into its entries. Any line holding only "§"
// (give or take surrounding whitespace and carriage returns, as hand edits and other
// platforms leave it) ends an entry; CRLF becomes LF; each entry is trimmed
// of surrounding whitespace and empty entries are dropped.
func parse(text string) []string {
	var entries []string
	var cur []string
	flush := func() {
		if e := strings.TrimSpace(strings.Join(cur, "\n")); e != "" {
			entries = append(entries, e)
		}
		cur = cur[:0]
	}
	for _, line := range strings.Split(unixLines(text), "\n") {
		if strings.TrimSpace(line) == "§" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return entries
}

// format is the file text of entries, byte for byte what Hermes writes:
// the entries joined by Delimiter, with no trailing newline.
func format(entries []string) string {
	return strings.Join(entries, Delimiter)
}

// chars is the size that counts against a limit: the runes of the entries
// joined by Delimiter, as Hermes counts them.
func chars(entries []string) int {
	if len(entries) == 0 {
		return 0
	}
	n := utf8.RuneCountInString(Delimiter) * (len(entries) - 1)
	for _, e := range entries {
		n += utf8.RuneCountInString(e)
	}
	return n
}

// Usage is how full one file is.
type Usage struct {
	Entries int `json:"entries"`
	Chars   int `json:"chars"`
	Limit   int `json:"limit"`
	Percent int `json:"percent"`
}

// usageOf measures entries against limit. Percent rounds down, so a file
// one character short of its limit does not claim to be full.
func usageOf(entries []string, limit int) Usage {
	u := Usage{Entries: len(entries), Chars: chars(entries), Limit: limit}
	if limit > 0 {
		u.Percent = u.Chars * 100 / limit
	}
	return u
}

// String is the usage as the prompt and error messages show it:
// "67% — 1,474/2,200 chars".
func (u Usage) String() string {
	return strconv.Itoa(u.Percent) + "% — " + tool.GroupDigits(u.Chars) + "/" + tool.GroupDigits(u.Limit) + " chars"
}

// preview is the start of an entry for error messages: one line, at most
// 60 runes.
func preview(entry string) string {
	s := strings.Join(strings.Fields(entry), " ")
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:57]) + "..."
	}
	return s
}

// previews returns the preview of each entry.
func previews(entries []string) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = preview(e)
	}
	return out
}
