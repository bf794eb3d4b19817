package redact

import (
	"bytes"
	"encoding/json"
	"strings"
)

// JSON returns doc, a JSON document, with clean applied to the text of
// every string in it, so that a tool's structured result is redacted
// without touching its syntax. Redacting the encoded text instead let a
// match swallow half an escape ("\n" became "\[REDACTED:token]"): the
// model received invalid JSON and lost a line break.
//
// A string value of an object member is cleaned together with its name,
// read as name=value, so {"api_key": "…"} is caught as api_key=… is in
// text; only the value changes. The result is valid JSON of the same
// structure, and doc itself when nothing changed. A doc that is not
// valid JSON is cleaned as text.
func JSON(doc []byte, clean func(string) string) []byte {
	if !json.Valid(doc) {
		return []byte(clean(string(doc)))
	}
	var out []byte // nil until something changes
	last := 0
	var key string // the member name before the value being read
	for i := 0; i < len(doc); i++ {
		switch doc[i] {
		case '"':
		case ',', '{', '[', '}', ']':
			key = ""
			continue
		default:
			continue
		}
		end := stringEnd(doc, i)
		s, ok := decodeString(doc[i:end])
		if !ok {
			i = end - 1
			continue
		}
		isKey := nextByte(doc, end) == ':'
		var cleaned string
		switch {
		case isKey:
			cleaned = clean(s)
		case key != "":
			cleaned = cleanMember(key, s, clean)
		default:
			cleaned = clean(s)
		}
		if cleaned != s {
			out = append(out, doc[last:i]...)
			out = append(out, encodeString(cleaned)...)
			last = end
		}
		if isKey {
			key = s
		} else {
			key = ""
		}
		i = end - 1
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}

// cleanMember cleans value as the value of the member name. Text is
// cleaned as it is (a command's output reads the same in or out of an
// envelope); a bare value, one word that nothing gave away, is read
// once more as name=value, so the name can say it is a secret.
func cleanMember(name, value string, clean func(string) string) string {
	got := clean(value)
	if got != value || value == "" || strings.ContainsAny(value, " \t\r\n") {
		return got
	}
	prefix := name + "="
	if named := clean(prefix + value); len(named) >= len(prefix) && named[:len(prefix)] == prefix {
		return named[len(prefix):]
	}
	return got
}

// stringEnd returns the index just past the string literal that starts
// at doc[i] (a quote) in valid JSON.
func stringEnd(doc []byte, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(doc)
}

// decodeString decodes a JSON string literal; one without escapes, as
// most are, is its bytes between the quotes.
func decodeString(lit []byte) (string, bool) {
	if len(lit) >= 2 && bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1]), true
	}
	var s string
	return s, json.Unmarshal(lit, &s) == nil
}

// nextByte is the first byte at or after i that is not JSON whitespace,
// or 0.
func nextByte(doc []byte, i int) byte {
	for ; i < len(doc); i++ {
		switch doc[i] {
		case ' ', '\t', '\r', '\n':
		default:
			return doc[i]
		}
	}
	return 0
}

// encodeString encodes s as a JSON string, HTML characters as they are
// (as tool results are encoded).
func encodeString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}
