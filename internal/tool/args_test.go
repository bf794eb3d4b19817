package tool

import (
	"strings"
	"testing"
)

func TestNormalizeDate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2024年1月1日", "2024-01-01"},
		{"2024年12月31号", "2024-12-31"},
		{"2024 年 3 月 8 日", "2024-03-08"},
		{"２０２４年１月２日", "2024-01-02"},
		{"2024年1月1", "2024-01-01"},
		{"2024/1/1", "2024-01-01"},
		{"2024.1.1", "2024-01-01"},
		{"2024-1-1", "2024-01-01"},
		{"2024-01-01", "2024-01-01"},
		{"Jan 1 2024", "2024-01-01"},
		{"Jan. 1, 2024", "2024-01-01"},
		{"January 1, 2024", "2024-01-01"},
		{"1 Jan 2024", "2024-01-01"},
		{"1 January 2024", "2024-01-01"},
		{"Sept 9 2024", "2024-09-09"},
		{"Monday, January 1st, 2024", "2024-01-01"},
		{"the 1st of March 2024", ""},
		{"1st of March 2024", "2024-03-01"},
		{"2024 Mar 5", "2024-03-05"},
		{"2024-02-29T10:00:00+08:00", "2024-02-29"},
		{"2024-02-29", "2024-02-29"},
		// Refused: ambiguous, impossible, incomplete or not a date.
		{"01/02/2024", ""},
		{"2023-02-29", ""},
		{"2024/13/1", ""},
		{"2024年0月1日", ""},
		{"Foo 1 2024", ""},
		{"Ma 1 2024", ""},
		{"2024", ""},
		{"24/1/1", ""},
		{"2024-01-01 10:00", ""},
		{"next tuesday", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := NormalizeDate(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("NormalizeDate(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestLooksTruncated(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"path": "a.txt"}`, false},
		{`{"path": "a.t`, true},
		{`{"path": "a.txt"`, true},
		{`{"items": [1, 2`, true},
		{`{"a": {"b": 1}`, true},
		{`{"s": "quote \" inside`, true},
		{`{"s": "escaped backslash \\"`, true},
		{`{"s": "escaped backslash \\"}`, false},
		{`{"s": "brace { in string"}`, false},
		{`{"a": 1}}`, false},
		{`{"a": [1}`, false},
		{`{'a': 1}`, false},
		{``, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := LooksTruncated(tt.in); got != tt.want {
			t.Errorf("LooksTruncated(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestPrepareRefusals(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"q":{"type":"string"}}}`)
	tests := []struct{ name, in, want string }{
		{"invalid JSON", `{q: 1}`, "not valid JSON"},
		{"truncated", `{"q": "abc`, "end before the JSON is complete"},
		{"trailing text", `{"q": "a"} extra`, "not valid JSON"},
		{"two objects", `{"q":"a"}{"q":"b"}`, "not valid JSON"},
		{"array", `["a"]`, "must be one JSON object"},
		{"number", `5`, "must be one JSON object"},
		{"string not object", `"hello"`, "must be one JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Prepare(tt.in)
			if err == nil {
				t.Fatalf("Prepare(%s) = %s, want an error", tt.in, got)
			}
			if err.Code != CodeInvalidArguments || !strings.Contains(err.Message, tt.want) {
				t.Errorf("Prepare(%s) = %s, want invalid_arguments containing %q", tt.in, err.Message, tt.want)
			}
		})
	}
	if got, err := s.Prepare("  \n"); err != nil || string(got) != "{}" {
		t.Errorf("Prepare(blank) = %s, %v; want {}", got, err)
	}
}

func TestPrepareReportsEveryError(t *testing.T) {
	s := mustSchema(t, `{
	  "type": "object",
	  "properties": {
	    "limit": {"type": "integer", "minimum": 1},
	    "path": {"type": "string"},
	    "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "string", "maxLength": 2}}}}
	  },
	  "required": ["path"],
	  "additionalProperties": false
	}`)
	_, err := s.Prepare(`{"limit": 0, "extra": true, "items": [{"n": "ok"}, {"n": "too long"}]}`)
	if err == nil {
		t.Fatal("Prepare accepted invalid arguments")
	}
	want := "the arguments of t do not match its parameters schema; the call did not run:\n" +
		"at '': additional properties 'extra' not allowed\n" +
		"at '': missing property 'path'\n" +
		"at '/items/1/n': maxLength: got 8, want 2\n" +
		"at '/limit': minimum: got 0, want 1\n" +
		"Fix every error listed and call t again."
	if err.Message != want {
		t.Errorf("message:\n%s\nwant:\n%s", err.Message, want)
	}
}

func TestValidationMessagesCap(t *testing.T) {
	s := mustSchema(t, `{"type":"object","additionalProperties":{"type":"integer"}}`)
	var b strings.Builder
	b.WriteString("{")
	for i := range 30 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":"x"`)
	}
	b.WriteString("}")
	_, err := s.Prepare(b.String())
	if err == nil || !strings.Contains(err.Message, "... and 10 more errors") {
		t.Fatalf("Prepare error = %v, want a capped list", err)
	}
	if n := strings.Count(err.Message, "\nat '"); n != maxValidationLines {
		t.Errorf("%d error lines, want %d", n, maxValidationLines)
	}
}

func TestValidationMessagesPlainError(t *testing.T) {
	if got := ValidationMessages(errString("boom")); len(got) != 1 || got[0] != "boom" {
		t.Errorf("ValidationMessages(plain) = %v", got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
