package anthropic

import (
	"bytes"
	"unicode/utf8"
)

// Nearly every event of a long reply is a content_block_delta carrying a
// few characters of text, thinking or tool input, and decoding each with
// encoding/json's reflection dominates the cost of reading a stream.
// fastDelta decodes exactly the layout Anthropic sends for those events:
//
//	{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"..."}}
//
// (likewise thinking_delta/"thinking" and input_json_delta/"partial_json",
// with the padding spaces Anthropic adds before the last brace). Any other
// layout, key order, \u escape or invalid UTF-8 reports ok=false and the
// event goes to encoding/json instead, so the fast path can only ever agree
// with the slow one; FuzzFastDelta checks that it does.
func fastDelta(data []byte) (index int, d blockDelta, ok bool) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"type":"content_block_delta","index":`))
	if !ok {
		return 0, d, false
	}
	n := 0
	for n < len(rest) && n < 6 && rest[n] >= '0' && rest[n] <= '9' {
		index = index*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 || (n > 1 && rest[0] == '0') {
		return 0, d, false
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"delta":{"type":"`)); !ok {
		return 0, d, false
	}
	var field *string
	switch {
	case bytes.HasPrefix(rest, []byte(`text_delta","text":`)):
		d.Type, field, rest = "text_delta", &d.Text, rest[len(`text_delta","text":`):]
	case bytes.HasPrefix(rest, []byte(`thinking_delta","thinking":`)):
		d.Type, field, rest = "thinking_delta", &d.Thinking, rest[len(`thinking_delta","thinking":`):]
	case bytes.HasPrefix(rest, []byte(`input_json_delta","partial_json":`)):
		d.Type, field, rest = "input_json_delta", &d.PartialJSON, rest[len(`input_json_delta","partial_json":`):]
	default:
		return 0, d, false
	}
	s, rest, ok := jsonString(rest)
	if !ok {
		return 0, d, false
	}
	rest, ok = bytes.CutPrefix(rest, []byte("}"))
	if !ok {
		return 0, d, false
	}
	rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte("}"))
	if !ok || len(bytes.TrimLeft(rest, " \t\r\n")) != 0 {
		return 0, d, false
	}
	*field = s
	return index, d, true
}

// jsonString decodes the JSON string at the start of b and returns it with
// the bytes after it. It handles the escapes Anthropic uses in practice
// and declines (ok=false) \u escapes, control characters and invalid UTF-8,
// whose exact treatment is left to encoding/json.
func jsonString(b []byte) (s string, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	b = b[1:]
	// The common case: no escape at all, one allocation for the string.
	end := bytes.IndexAny(b, "\"\\")
	if end < 0 {
		return "", nil, false
	}
	if b[end] == '"' {
		if !rawText(b[:end]) {
			return "", nil, false
		}
		return string(b[:end]), b[end+1:], true
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			// Escapes add only ASCII, so this checks the raw bytes.
			if !utf8.Valid(out) {
				return "", nil, false
			}
			return string(out), b[i+1:], true
		case c < 0x20:
			return "", nil, false
		case c != '\\':
			out = append(out, c)
			continue
		}
		i++
		if i == len(b) {
			return "", nil, false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default: // \u and anything invalid
			return "", nil, false
		}
	}
	return "", nil, false
}

// rawText reports whether b, the raw bytes of a JSON string without
// escapes, has no control characters and is valid UTF-8, so that
// converting it to a string is exactly what encoding/json would do.
func rawText(b []byte) bool {
	ascii := true
	for _, c := range b {
		if c < 0x20 {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(b)
}
