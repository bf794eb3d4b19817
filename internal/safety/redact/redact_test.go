package redact

import "testing"

func TestRedactor(t *testing.T) {
	r := New(map[string]string{
		"OPENAI_API_KEY": "sk-abcdefghijklmnop",
		"LONG_TOKEN":     "sk-abcdefghijklmnop-extended",
		"PORT":           "8080",
	})
	cases := map[string]string{
		"key=sk-abcdefghijklmnop end":         "key=[REDACTED:OPENAI_API_KEY] end",
		"t=sk-abcdefghijklmnop-extended":      "t=[REDACTED:LONG_TOKEN]",
		"listening on 8080":                   "listening on 8080",
		`{"output":"sk-abcdefghijklmnop\n"}`:  `{"output":"[REDACTED:OPENAI_API_KEY]\n"}`,
		"nothing secret here, 数据库迁移 included": "nothing secret here, 数据库迁移 included",
	}
	for in, want := range cases {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	var none *Redactor = New(map[string]string{"X": "short"})
	if got := none.Redact("short"); got != "short" {
		t.Errorf("a redactor without secrets changed text: %q", got)
	}
}

func TestRedactorAppliesFormats(t *testing.T) {
	gh := "ghp_" + fake(alnum, 36)
	r := New(map[string]string{"MY_SERVICE": "plain-value-123"})
	in := "svc=plain-value-123 gh=" + gh + " DB_PASSWORD=hunter2x"
	want := "svc=[REDACTED:MY_SERVICE] gh=[REDACTED:github_token] DB_PASSWORD=[REDACTED:password]"
	if got := r.Redact(in); got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
	var none *Redactor
	if got := none.Redact("gh=" + gh); got != "gh=[REDACTED:github_token]" {
		t.Errorf("nil Redactor: %q", got)
	}
	// A known value that also has a known format keeps its variable name.
	r = New(map[string]string{"GITHUB_TOKEN": gh})
	if got := r.Redact("GITHUB_TOKEN=" + gh); got != "GITHUB_TOKEN=[REDACTED:GITHUB_TOKEN]" {
		t.Errorf("known value: %q", got)
	}
}
