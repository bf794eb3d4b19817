package redact

import "strings"

// minWrapLine is the shortest line of a wrapped encoding: base64 wraps
// at 76 characters, openssl and PEM at 64, xxd -p at 60.
const minWrapLine = 16

// unwrap finds the texts that look like base64 or hex wrapped over
// several lines (each line but the last at least minWrapLine characters
// of the base64 alphabet, the line breaks real or JSON-escaped), joins
// each one's lines and redacts the known values in it. A text in which
// something was found is replaced by its redacted, joined form; the rest
// is left as it was.
func (r *Redactor) unwrap(text string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); {
		end, lines := wrappedRun(text, i)
		if len(lines) < 2 {
			i = max(end, i+1)
			continue
		}
		joined := strings.Join(lines, "")
		if red := r.r.Replace(joined); red != joined {
			b.WriteString(text[last:i])
			b.WriteString(red)
			last = end
		}
		i = end
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// wrappedRun reads, from start, lines of the base64 alphabet separated by
// line breaks, and returns where they end and the lines; a line shorter
// than minWrapLine ends the run (it is its last line).
func wrappedRun(text string, start int) (int, []string) {
	var lines []string
	i := start
	for {
		j := i
		for j < len(text) && isEncodingByte(text[j]) {
			j++
		}
		if j == i {
			return i, lines
		}
		lines = append(lines, text[i:j])
		if j-i < minWrapLine {
			return j, lines
		}
		k := skipBreak(text, j)
		if k == j {
			return j, lines
		}
		i = k
	}
}

// skipBreak returns the index after the line break at text[i] ("\n",
// "\r\n", or those escaped as in a JSON string), or i when there is none.
func skipBreak(text string, i int) int {
	for _, br := range []string{"\r\n", "\n", `\r\n`, `\n`} {
		if strings.HasPrefix(text[i:], br) {
			return i + len(br)
		}
	}
	return i
}

// isEncodingByte reports whether c belongs to the standard or URL-safe
// base64 alphabet (which holds hex digits too), padding included.
func isEncodingByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}
