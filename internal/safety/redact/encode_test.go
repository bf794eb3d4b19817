package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// wrap breaks s into lines of n characters joined by br.
func wrap(s string, n int, br string) string {
	var lines []string
	for len(s) > n {
		lines = append(lines, s[:n])
		s = s[n:]
	}
	return strings.Join(append(lines, s), br)
}

// leaks reports whether secret can be read back from out by undoing the
// encodings Redactor covers: base64 of either alphabet from any
// character, with line breaks removed; hex from either nibble; reversed;
// URL- and JSON-unescaped.
func leaks(out, secret string) bool {
	flat := strings.NewReplacer("\r", "", "\n", "", `\r`, "", `\n`, "").Replace(out)
	if strings.Contains(flat, secret) || strings.Contains(reverse(flat), secret) {
		return true
	}
	if u, err := url.QueryUnescape(flat); err == nil && strings.Contains(u, secret) {
		return true
	}
	var js string
	if json.Unmarshal([]byte(`"`+flat+`"`), &js) == nil && strings.Contains(js, secret) {
		return true
	}
	for _, run := range strings.FieldsFunc(flat, func(r rune) bool { return r > 127 || !isEncodingByte(byte(r)) }) {
		for off := 0; off < 4 && off < len(run); off++ {
			s := strings.TrimRight(run[off:], "=")
			s = s[:len(s)-len(s)%4]
			for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				if b, err := enc.DecodeString(s); err == nil && strings.Contains(string(b), secret) {
					return true
				}
			}
			h := run[off:]
			h = h[:len(h)-len(h)%2]
			if b, err := hex.DecodeString(strings.ToLower(h)); err == nil && strings.Contains(string(b), secret) {
				return true
			}
		}
	}
	return false
}

// TestRedactorEncodings: a known secret is caught in every common
// encoding, at every offset inside a longer encoded text, wrapped or not,
// as it reaches redaction in a JSON tool result or as plain text.
func TestRedactorEncodings(t *testing.T) {
	secrets := map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-api03-Zx8Qw2Lm9Rt4Yp7Vb3Nc6Kd1",
		"DB_PASSWORD":       "p@ss/w0rd+with&chars=long?",
		"ORDERS_ACCESS":     "ord-7f3a9c2e5b8d",
	}
	r := New(secrets)
	encoders := map[string]func(string) string{
		"base64":          func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		"base64url":       func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) },
		"base64 unpadded": func(s string) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) },
		"base64url raw":   func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) },
		"base64 -w76": func(s string) string {
			return wrap(base64.StdEncoding.EncodeToString([]byte(s)), 76, "\n")
		},
		"openssl -w64 crlf": func(s string) string {
			return wrap(base64.StdEncoding.EncodeToString([]byte(s)), 64, "\r\n")
		},
		"hex":          func(s string) string { return hex.EncodeToString([]byte(s)) },
		"HEX":          func(s string) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) },
		"xxd -p":       func(s string) string { return wrap(hex.EncodeToString([]byte(s)), 60, "\n") },
		"rev":          reverse,
		"urlencode":    url.QueryEscape,
		"pathescape":   url.PathEscape,
		"json escaped": func(s string) string { b, _ := json.Marshal(s); return strings.Trim(string(b), `"`) },
	}
	contexts := []string{"", "K=", "KEY=", "export X=", "#!/bin/sh\nA_LONG_PREFIX_LINE=1\nSECRET=", "{\"k\":\""}
	for name, value := range secrets {
		for ename, enc := range encoders {
			for _, before := range contexts {
				for _, after := range []string{"", "\n", "\nNEXT=1\n", "\"}"} {
					encoded := enc(before + value + after)
					for _, carrier := range []string{"%s", "output: %s\ndone", ""} {
						var in string
						if carrier == "" {
							// As the dispatcher sees it: a JSON envelope.
							b, _ := json.Marshal(map[string]any{"status": "ok", "data": map[string]any{"stdout": encoded}})
							in = string(b)
						} else {
							in = fmt.Sprintf(carrier, encoded)
						}
						out := r.Redact(in)
						if leaks(out, value) {
							t.Errorf("%s as %s after %q in %q: leaks in %q", name, ename, before, carrier, out)
						} else if !strings.Contains(out, "[REDACTED:"+name+"]") && !strings.Contains(out, "[REDACTED:") {
							t.Errorf("%s as %s: no marker in %q", name, ename, out)
						}
					}
				}
			}
		}
	}
}

func TestRedactorEncodingsKeepsOtherText(t *testing.T) {
	r := New(map[string]string{"API_KEY": "sk-abcdefghijklmnop"})
	for _, s := range []string{
		base64.StdEncoding.EncodeToString([]byte("nothing to see here, just a long enough plain text")),
		wrap(base64.StdEncoding.EncodeToString([]byte(strings.Repeat("harmless content ", 20))), 76, "\n"),
		hex.EncodeToString([]byte("another harmless line of text")),
		"pony egassem tnatropmi",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestBase64Core(t *testing.T) {
	v := "sk-abcdefghijklmnop"
	for shift := 0; shift < 3; shift++ {
		core := base64Core(base64.StdEncoding, v, shift)
		for _, around := range [][2]string{{"", ""}, {"x", "y"}, {"\x00\xff", "zz"}} {
			pre := strings.Repeat("a", shift) + around[0]
			pre = pre[:shift] // keep v at the offset being checked
			enc := base64.StdEncoding.EncodeToString([]byte(pre + v + around[1]))
			if !strings.Contains(enc, core) {
				t.Errorf("shift %d: core %q not in %q", shift, core, enc)
			}
		}
		if len(core) < 8*len(v)/6-2 {
			t.Errorf("shift %d: core %q is short", shift, core)
		}
	}
}
