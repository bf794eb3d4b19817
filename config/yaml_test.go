package config

import (
	"strings"
	"testing"
)

// TestResolveTag pins how plain scalars are typed, which decides both
// what ${VAR} expansion touches and which strings are quoted on output.
func TestResolveTag(t *testing.T) {
	cases := map[string]string{
		"": nullTag, "~": nullTag, "null": nullTag, "Null": nullTag, "NULL": nullTag,
		"true": boolTag, "False": boolTag, "yes": strTag, "on": strTag, "y": strTag,
		"123": intTag, "-0x1F": intTag, "0o17": intTag, "0b101": intTag, "1_000": intTag, "0777": intTag,
		"1.5": floatTag, ".5": floatTag, "1e3": floatTag, "-.inf": floatTag, ".NaN": floatTag, "1.": floatTag,
		"2001-12-14": timestampTag, "2001-12-14T21:59:43.10Z": timestampTag,
		"<<": mergeTag, "1:20": strTag, "90s": strTag, "0x": strTag, "abc": strTag, "+": strTag, "-": strTag,
	}
	for in, want := range cases {
		if got := resolveTag(in); got != want {
			t.Errorf("resolveTag(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestScalarQuoting pins how values are written: plain when they read
// back as the same string, otherwise the lightest quoting that does.
func TestScalarQuoting(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"123", `"123"`},
		{"true", `"true"`},
		{"", `""`},
		{"****", `'****'`},
		{"a: b", `'a: b'`},
		{"# not a comment", `'# not a comment'`},
		{"it's", "it's"},
		{" lead", `' lead'`},
		{"tab\there", `"tab\there"`},
		{"emoji 😀", `"emoji \U0001F600"`},
		{"é", "é"},
		{"2001-12-14", `"2001-12-14"`},
		{"two\nlines", "|-\n    two\n    lines"},
	}
	for _, tc := range cases {
		out, err := encodeYAML(&yamlNode{Kind: scalarNode, Tag: strTag, Value: tc.in}, 4)
		if got := strings.TrimSuffix(string(out), "\n"); err != nil || got != tc.want {
			t.Errorf("%q is written %q (%v), want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestTreeEditKeepsComments covers edits that rewrite the whole file:
// every comment stays beside the entry it was written with.
func TestTreeEditKeepsComments(t *testing.T) {
	before := `# ~/.hermes/config.yaml

model:
  provider: ollama
  default: qwen3:30b   # fits in 24 GB

fallback_providers:
  # cheapest first
  - provider: openrouter
    model: qwen/qwen3-coder
  - provider: openai   # last resort

agent:
  # be patient with local models
  first_byte_timeout: 10m
# end
`
	want := `# ~/.hermes/config.yaml

model:
  provider: ollama
  default: qwen3:30b # fits in 24 GB
fallback_providers:
  # cheapest first
  - provider: openrouter
    model: qwen/qwen3-coder
  - provider: openai # last resort
  - provider: groq
agent:
  # be patient with local models
  first_byte_timeout: 10m
# end
`
	out, _, err := setYAML([]byte(before), "fallback_providers[2].provider", "groq")
	if err != nil || string(out) != want {
		t.Errorf("got (%v):\n%s\nwant:\n%s", err, out, want)
	}
}

func TestSetKeepsACommentedOutFile(t *testing.T) {
	before := "# model:\n#   default: x\n"
	out, _, err := setYAML([]byte(before), "model.default", "y")
	if want := before + "\nmodel:\n  default: y\n"; err != nil || string(out) != want {
		t.Errorf("got (%v):\n%s\nwant:\n%s", err, out, want)
	}
}

func TestYAMLTextErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"model:\n  default: a\xff\n", "config.yaml:2: invalid YAML: invalid leading UTF-8 octet"},
		{"model: \xe2\x82", "config.yaml:1: invalid YAML: incomplete UTF-8 octet sequence"},
		{"model:\n\n  default: a\x01b\n", "config.yaml:3: invalid YAML: control characters are not allowed"},
		{"model:\n  default: *nowhere\n", "config.yaml:2: invalid YAML: unknown anchor 'nowhere' referenced"},
		{"model: {default: a\n", "config.yaml:1: invalid YAML: did not find expected ',' or '}'"},
	}
	for _, tc := range cases {
		_, _, err := parseYAML([]byte(tc.in), "config.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("parseYAML(%q) = %v, want %s", tc.in, err, tc.want)
		}
	}
}

// TestLaterDocumentErrorsDoNotHide checks that the first document is read
// even when a later one cannot be.
func TestLaterDocumentErrorsDoNotHide(t *testing.T) {
	root, warns, err := parseYAML([]byte("model:\n  default: a\n---\nmodel: [\n"), "config.yaml")
	if err != nil || root == nil || len(warns) != 0 || root.Content[0].Value != "model" {
		t.Fatalf("parseYAML = %v, %q, %v", root, warns, err)
	}
}
