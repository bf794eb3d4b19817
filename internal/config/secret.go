package config

import (
	"fmt"
	"io"
	"strings"
)

// Secret is a string that prints redacted: fmt (every verb), encoding/json
// and YAML rendering all show the Redact form, so an API key cannot leak
// into a log line or an error by accident. Convert it with string(s) where
// the real value is needed, such as an Authorization header.
type Secret string

// String returns the redacted form.
func (s Secret) String() string { return Redact(string(s)) }

// Format writes the redacted form for every verb, including %#v and %x.
func (s Secret) Format(f fmt.State, verb rune) { io.WriteString(f, Redact(string(s))) }

// MarshalText returns the redacted form, so JSON and YAML encoders never
// see the real value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(Redact(string(s))), nil }

// Redact shows enough of a secret to tell two keys apart and no more: the
// first three and the last four characters of a long key ("sk-…abcd"),
// "****" for a short one, and "(not set)" for none.
func Redact(s string) string {
	r := []rune(s)
	switch {
	case len(r) == 0:
		return "(not set)"
	case len(r) < 16:
		return "****"
	}
	return string(r[:3]) + "…" + string(r[len(r)-4:])
}

// looksSecret reports whether a header (or other free-form) value should
// be redacted when shown: its name says it carries a credential, or the
// value reads like a bearer token or a long random key.
func looksSecret(name, value string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "token", "key", "secret", "cookie", "password", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	v := strings.TrimSpace(value)
	if lv := strings.ToLower(v); strings.HasPrefix(lv, "bearer ") || strings.HasPrefix(lv, "basic ") {
		return true
	}
	if len(v) < 20 || strings.ContainsAny(v, " /:") {
		return false
	}
	var letters, digits bool
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters = true
		}
	}
	return letters && digits
}
