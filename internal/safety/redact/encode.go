package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"unicode/utf8"
)

// A secret hermes knows leaves just as surely in disguise: `base64 .env`,
// `xxd -p`, `rev`, a URL with the key in its query, a JSON string with
// the key's quotes escaped. Encodings are the forms a known value takes
// in the common encodings, each replaced like the value itself.

// encodings returns the forms of v to redact besides v itself: base64
// (standard and URL-safe, padded and not, and the part that is the same
// at each of the three offsets v may have inside a longer base64 text),
// hex in lower and upper case, v reversed, URL-encoded, and each of these
// as it appears in a JSON string, once or twice escaped (a program's JSON
// output inside a tool result). Forms equal to v or shorter than
// minSecretLen are left out.
func encodings(v string) []string {
	forms := []string{v, reverse(v), url.QueryEscape(v), url.PathEscape(v)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		forms = append(forms, enc.EncodeToString([]byte(v)), enc.WithPadding(base64.NoPadding).EncodeToString([]byte(v)))
		for shift := 0; shift < 3; shift++ {
			forms = append(forms, base64Core(enc, v, shift))
		}
	}
	h := hex.EncodeToString([]byte(v))
	forms = append(forms, h, strings.ToUpper(h))
	seen := map[string]bool{v: true}
	var out []string
	for _, f := range forms {
		for _, html := range []bool{true, false} {
			once := jsonString(f, html)
			for _, e := range []string{f, once, jsonString(once, html)} {
				if !seen[e] && len(e) >= minSecretLen {
					seen[e] = true
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// base64Core is the part of the base64 encoding of a text that holds v
// shift bytes past a 3-byte boundary which depends on v alone: the
// characters whose six bits all come from v's bytes. It is what any text
// that carries v at that offset encodes to, whatever surrounds it.
func base64Core(enc *base64.Encoding, v string, shift int) string {
	raw := enc.WithPadding(base64.NoPadding)
	s := raw.EncodeToString(append(make([]byte, shift), v...))
	first := (8*shift + 5) / 6       // the first character after the filler bits
	last := 8 * (shift + len(v)) / 6 // characters before it hold only v's bits
	if first >= last || last > len(s) {
		return ""
	}
	return s[first:last]
}

// reverse is s backwards, character by character, as rev prints it.
func reverse(s string) string {
	if !utf8.ValidString(s) {
		b := []byte(s)
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		return string(b)
	}
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// jsonString is s as it appears inside a JSON string, with HTML
// characters escaped as encoding/json does by default, or not.
func jsonString(s string, escapeHTML bool) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(escapeHTML)
	if err := e.Encode(s); err != nil {
		return s
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.TrimSuffix(strings.TrimPrefix(out, `"`), `"`)
}
