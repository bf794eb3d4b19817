package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// plainText builds text with no secret-shaped value from fuzz bytes:
// words of letters (any case, at most 12), numbers of at most 4 digits,
// joined by spaces, line breaks, tabs and punctuation (= and : too), and
// no word that holds a keyword secret names are made of. Every secret
// format needs more than that: a longer run of letters and digits, a
// -, _, / or @, a keyword, or 5 digits or more in a row.
func plainText(data []byte) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	seps := []string{" ", " ", " ", "\n", "\t", ", ", ". ", "; ", " (", ") ", "=", ": ", " = ", "\n  ", "\"", "'", " {", "} ", "[", "]"}
	var b strings.Builder
	for i := 0; i < len(data); {
		c := data[i]
		i++
		switch {
		case c < 160: // a word
			n := 1 + int(c)%12
			var w strings.Builder
			for k := 0; k < n && i < len(data); k++ {
				w.WriteByte(letters[int(data[i])%len(letters)])
				i++
			}
			if word := w.String(); namesSecret(word) {
				b.WriteString("word")
			} else {
				b.WriteString(word)
			}
		case c < 200: // a number
			n := 1 + int(c)%4
			for k := 0; k < n; k++ {
				b.WriteByte('0' + byte((int(c)+k*7)%10))
			}
		default:
			b.WriteString(seps[int(c)%len(seps)])
			continue
		}
		// Words and numbers are always followed by a space, so that no
		// two make one longer run.
		b.WriteByte(' ')
	}
	return b.String()
}

// namesSecret reports whether a word holds a keyword that secret names,
// headers or schemes are made of.
func namesSecret(word string) bool {
	w := strings.ToLower(word)
	for _, k := range []string{"key", "token", "secret", "pass", "pw", "credential", "bearer", "auth", "sig", "jwt", "eyj"} {
		if strings.Contains(w, k) {
			return true
		}
	}
	return false
}

// FuzzSecretsPlainText checks that Secrets leaves text with no
// secret-shaped value exactly as it is.
func FuzzSecretsPlainText(f *testing.F) {
	f.Add([]byte("hello world"))
	f.Add([]byte{5, 'a', 'b', 'c', 'd', 'e', 'f', 210, 170, 250, 11, 'x', 'y', 'z', 'X', 'Y', 'Z', 'q', 'r', 's', 't', 'u', 'v'})
	f.Add([]byte(strings.Repeat("\x9f0123456789ABCDEF\xd4", 20)))
	f.Fuzz(func(t *testing.T, data []byte) {
		text := plainText(data)
		if got := Secrets(text); got != text {
			t.Errorf("Secrets changed text with no secret:\n in  %q\n got %q", text, got)
		}
	})
}

// FuzzSecrets checks what holds for any text: redaction replaces
// disjoint, non-empty stretches of the text by markers and keeps the
// rest byte for byte; it keeps UTF-8 valid and the markers already in
// the text; and redacting its output again changes nothing more.
func FuzzSecrets(f *testing.F) {
	for _, s := range []string{
		"export GITHUB_TOKEN=ghp_" + fake(alnum, 36),
		"password=mysecret&username=bob&token=opaqueValue",
		"https://user:pw123456@host/x?token=abc;view=1#access_token=x",
		"ghp_abcdef\u200b1234567890ABCDEF1234567890abcdef and sk-aaaaaaaaaaaaaaa\x1bbbbbbbbbbbbbbbbbbbbbbbbbb",
		"I have password=foo; IDENTITY_TOKEN=\"bailu\" {\"token\": \"CPU\"} runtime.token=local",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc [REDACTED:x]",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIE" + fake(alnum, 80) + "\n-----END RSA PRIVATE KEY-----",
		"bot123456789:ABCDEfghij-KLMNopqrst_UVWXyz12345 git remote https://MYPASSWORDWASDISLAYEDHERE@github.com/x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spans := secretSpans(text)
		var b strings.Builder
		last := 0
		for _, sp := range spans {
			if sp.start < last || sp.end <= sp.start || sp.end > len(text) || sp.kind == "" {
				t.Fatalf("bad span %+v after %d in %q", sp, last, text)
			}
			if strings.HasPrefix(text[sp.start:sp.end], "[REDACTED") {
				t.Fatalf("span %+v redacts a marker in %q", sp, text)
			}
			b.WriteString(text[last:sp.start] + "[REDACTED:" + sp.kind + "]")
			last = sp.end
		}
		b.WriteString(text[last:])
		got := Secrets(text)
		if got != b.String() {
			t.Fatalf("Secrets(%q) = %q, not its spans replaced", text, got)
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Errorf("Secrets(%q) = %q is not valid UTF-8", text, got)
		}
		if strings.Count(got, "[REDACTED:") < strings.Count(text, "[REDACTED:") {
			t.Errorf("Secrets(%q) = %q lost a marker", text, got)
		}
		if again := Secrets(got); again != got {
			t.Errorf("redacting again changed more:\n in    %q\n once  %q\n twice %q", text, got, again)
		}
	})
}
