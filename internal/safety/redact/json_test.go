package redact

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Ab3", 14)
	cases := []struct{ name, in, want string }{
		{"no secret", `{"a":"b\nc","n":[1,2.5,true,null]}`, `{"a":"b\nc","n":[1,2.5,true,null]}`},
		// A secret followed by an escaped line break keeps the break.
		{"escape after secret", `{"stdout":"TOKEN=` + key + `\nnext line"}`, `{"stdout":"TOKEN=[REDACTED:openai_key]\nnext line"}`},
		{"member name says secret", `{"api_key": "A9f3kZq7Lm2Xw8Rt4Yv6", "user": "ada"}`, `{"api_key": "[REDACTED:key]", "user": "ada"}`},
		{"nested", `{"env":[{"name":"X","value":"` + key + `"}]}`, `{"env":[{"name":"X","value":"[REDACTED:openai_key]"}]}`},
		{"html kept", `{"html":"<a href=\"x\">` + key + `</a>"}`, `{"html":"<a href=\"x\">[REDACTED:openai_key]</a>"}`},
		{"unicode escapes", `{"s":"\u00e9 ` + key + `"}`, `{"s":"é [REDACTED:openai_key]"}`},
	}
	for _, c := range cases {
		got := string(JSON([]byte(c.in), Secrets))
		if got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: invalid JSON %s", c.name, got)
		}
	}
	if got := string(JSON([]byte("not json "+key), Secrets)); got != "not json [REDACTED:openai_key]" {
		t.Errorf("text that is not JSON: %s", got)
	}
}

// shape is a decoded JSON value with every string emptied: two documents
// of the same shape differ only in the text of their strings.
func shape(v any) any {
	switch x := v.(type) {
	case string:
		return ""
	case []any:
		for i := range x {
			x[i] = shape(x[i])
		}
	case map[string]any:
		// Member names may be redacted too: compare the members'
		// shapes, in a stable order.
		var members []string
		for _, e := range x {
			b, _ := json.Marshal(shape(e))
			members = append(members, string(b))
		}
		slices.Sort(members)
		return members
	}
	return v
}

// FuzzJSON checks that redacting a valid JSON document always gives a
// valid document of the same shape (only strings change), and that a
// document with nothing to redact comes back byte for byte.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"stdout":"TOKEN=sk-proj-Ab3Ab3Ab3Ab3Ab3Ab3Ab3Ab3Ab3Ab3\n"}`,
		`{"api_key":"A9f3kZq7Lm2Xw8Rt4Yv6","l":[1,"\\n",{"password":"hunter2hunter2"}]}`,
		`["ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\"]`,
		`"a\u0000b"`, `{}`, `[[[]]]`, `{"a":{"b":{"c":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		got := JSON(doc, Secrets)
		if !json.Valid(got) {
			t.Fatalf("JSON(%q) = %q, not valid JSON", doc, got)
		}
		a, b := decodeNumbers(t, doc), decodeNumbers(t, got)
		if !reflect.DeepEqual(shape(a), shape(b)) {
			t.Fatalf("JSON(%q) = %q changed the document's structure", doc, got)
		}
		if !strings.Contains(string(got), "[REDACTED") && string(got) != string(doc) {
			t.Fatalf("JSON(%q) = %q changed a document it redacted nothing in", doc, got)
		}
	})
}

// decodeNumbers decodes doc keeping numbers as written (1e700 is valid
// JSON but no float64).
func decodeNumbers(t *testing.T, doc []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
