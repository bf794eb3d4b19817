package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	_ "time/tzdata" // time zone checks must not depend on the machine's zoneinfo
)

const handWritten = `# hermes configuration
model:
  provider: openrouter    # the main provider
  default: "anthropic/claude-sonnet-4"

# retries and limits
agent:
  api_max_retries: 3

  max_turns: 90   # per turn
`

func TestSetPreservesTheFile(t *testing.T) {
	cases := []struct {
		name, key, value string
		want             string
		get              string
	}{
		{"replace a string in place", "model.default", "openai/gpt-5",
			strings.Replace(handWritten, `"anthropic/claude-sonnet-4"`, `"openai/gpt-5"`, 1), ""},
		{"replace a number in place", "agent.max_turns", "120",
			strings.Replace(handWritten, "max_turns: 90 ", "max_turns: 120 ", 1), ""},
		{"replace next to a comment", "model.provider", "ollama",
			strings.Replace(handWritten, "provider: openrouter    #", "provider: ollama    #", 1), ""},
		{"add a key to a section", "model.api_mode", "responses",
			strings.Replace(handWritten, "claude-sonnet-4\"\n", "claude-sonnet-4\"\n  api_mode: responses\n", 1), ""},
		{"add a section", "timezone", "Asia/Shanghai", handWritten + "timezone: Asia/Shanghai\n", ""},
		{"add a nested section", "providers.gpu.base_url", "http://gpu:8000/v1",
			handWritten + "providers:\n  gpu:\n    base_url: http://gpu:8000/v1\n", ""},
		{"add a list entry", "fallback_providers[0].provider", "openai",
			handWritten + "fallback_providers:\n  - provider: openai\n", ""},
		{"a duration in seconds", "agent.idle_timeout", "90",
			strings.Replace(handWritten, "  max_turns: 90   # per turn\n", "  max_turns: 90   # per turn\n  idle_timeout: \"90\"\n", 1), "1m30s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.get == "" {
				tc.get = tc.value
			}
			dir := home(t, map[string]string{"config.yaml": handWritten})
			res, err := Set(dir, tc.key, tc.value)
			if err != nil {
				t.Fatal(err)
			}
			got := readFile(t, filepath.Join(dir, "config.yaml"))
			if got != tc.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tc.want)
			}
			if res.File != filepath.Join(dir, "config.yaml") || res.Note != "" {
				t.Errorf("result = %+v", res)
			}
			l := mustLoad(t, map[string]string{"config.yaml": got}, nil, nil)
			if v, err := l.Get(tc.key); err != nil || v != tc.get {
				t.Errorf("Get(%s) = %q, %v after Set", tc.key, v, err)
			}
		})
	}
}

// TestSetEdits covers the edits made on the YAML tree and the quoting of
// replaced values.
func TestSetEdits(t *testing.T) {
	cases := []struct {
		name, before, key, value string
		want                     string
	}{
		{"new file", "", "model.provider", "ollama", "model:\n  provider: ollama\n"},
		{"a number-like string stays a string", "model:\n  default: a # note\n", "model.default", "123", "model:\n  default: \"123\" # note\n"},
		{"double quotes with escapes", "model:\n  default: \"a \\\"b\\\" c\" # x\n", "model.default", "d\"e", "model:\n  default: \"d\\\"e\" # x\n"},
		{"single quotes are kept", "model:\n  default: 'a'\n", "model.default", "it's", "model:\n  default: 'it''s'\n"},
		{"a number is written canonically", "", "model.max_tokens", "0100", "model:\n  max_tokens: 100\n"},
		{"empty section", "# top\nmodel:\nagent:\n  max_turns: 5\n", "model.default", "m",
			"# top\nmodel:\n  default: m\nagent:\n  max_turns: 5\n"},
		{"flow list append", "fallback_providers: [{provider: openai, model: a}]\n", "fallback_providers[1]", "{provider: groq, model: b}",
			"fallback_providers: [{provider: openai, model: a}, {provider: groq, model: b}]\n"},
		{"shorthand model becomes a mapping", "model: qwen3 # local\n", "model.provider", "ollama",
			"model:\n  default: qwen3 # local\n  provider: ollama\n"},
		{"alias is copied, not edited", "base: &b\n  provider: openai\n  default: x\nmodel: *b\n", "model.default", "y",
			"base: &b\n  provider: openai\n  default: x\nmodel:\n  provider: openai\n  default: y\n"},
		{"four-space indentation is kept", "model:\n    provider: openai\n", "agent.max_turns", "3",
			"model:\n    provider: openai\nagent:\n    max_turns: 3\n"},
		{"multi-line value", "model:\n  default: a\n", "model.default", "line1\nline2",
			"model:\n  default: |-\n    line1\n    line2\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			if tc.before != "" {
				files["config.yaml"] = tc.before
			}
			dir := home(t, files)
			if _, err := Set(dir, tc.key, tc.value); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, filepath.Join(dir, "config.yaml")); got != tc.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestSetRejectsWithoutTouchingTheFile(t *testing.T) {
	cases := []struct {
		key, value, want string
	}{
		{"model.api_mode", "chat", `model.api_mode: "chat" is not accepted; use one of chat_completions, responses, anthropic_messages`},
		{"agent.api_max_retries", "three", `agent.api_max_retries: "three" is not an integer`},
		{"agent.idle_timeout", "-3s", `agent.idle_timeout: "-3s" is not accepted; use zero or more`},
		{"model.base_url", "localhost:1234", `model.base_url: "localhost:1234" is not accepted; use an http:// or https:// URL`},
		{"model.defualt", "x", `unknown key "model.defualt" (did you mean "model.default"?)`},
		{"max_turns", "3", `unknown key "max_turns" (did you mean "agent.max_turns"?)`},
		{"model.provider", "nowhere", `model.provider: "nowhere" is not accepted; use auto, one of openai, anthropic, openrouter, deepseek, dashscope, qwen, groq, mistral, gemini, moonshot, kimi, ollama, vllm, llamacpp, custom, or a name defined under providers`},
		{"fallback_providers[5].model", "x", `fallback_providers[5] is not accepted; use an index from 0 to 0`},
		{"fallback_providers", "[{model: x}]", `fallback_providers[0].provider: "" is not accepted; every fallback needs a provider, as in {provider: openrouter, model: NAME}`},
		{"fallback_providers", "[{provider: openai, modle: x}]", `unknown key "fallback_providers[0].modle" (did you mean "fallback_providers[0].model"?)`},
		{"agent", "{max_turns: many}", `agent.max_turns: "many" is not an integer`},
		{"model..default", "x", `key "model..default" is not accepted; write dotted names such as model.default`},
	}
	for _, tc := range cases {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			dir := home(t, map[string]string{"config.yaml": handWritten})
			path := filepath.Join(dir, "config.yaml")
			before, _ := os.Stat(path)
			_, err := Set(dir, tc.key, tc.value)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant  %s", err, tc.want)
			}
			after, _ := os.Stat(path)
			if got := readFile(t, path); got != handWritten || !after.ModTime().Equal(before.ModTime()) {
				t.Errorf("the file changed:\n%s", got)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("left files behind: %v", entries)
			}
		})
	}
}

func TestSetRefusesABrokenFile(t *testing.T) {
	dir := home(t, map[string]string{"config.yaml": "model:\n  default: a: b\n"})
	_, err := Set(dir, "model.default", "x")
	want := "config.yaml:2: invalid YAML: mapping values are not allowed in this context (fix config.yaml before setting values)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v", err)
	}
}

func TestSetSecretSaysWhereSecretsGo(t *testing.T) {
	dir := home(t, map[string]string{"config.yaml": "model:\n  provider: deepseek\n"})
	res, err := Set(dir, "model.api_key", "sk-deepseek-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(dir, ".env")
	want := "the key is now stored in plain text in config.yaml; the usual place for secrets is " + env + " (DEEPSEEK_API_KEY=...), where hermes finds it without any setting"
	if res.Note != want || res.Value != "sk-…6789" || res.Key != "model.api_key" {
		t.Errorf("result = %+v", res)
	}
	res, _ = Set(dir, "model.api_key", "${DEEPSEEK_KEY}")
	if got := readFile(t, filepath.Join(dir, "config.yaml")); !strings.Contains(got, "api_key: ${DEEPSEEK_KEY}") {
		t.Errorf("file:\n%s", got)
	}
	// A reference is not stored in plain text: it says where it is read.
	if want := "the key is read from DEEPSEEK_KEY, in " + env + " or the environment"; res.Note != want || res.Value != "${DEEPSEEK_KEY}" {
		t.Errorf("a reference: %+v, want the note %q", res, want)
	}
	// A chat platform's token is not a model provider's key.
	res, _ = Set(dir, "gateway.telegram.token", "123456:AAplain")
	if !strings.Contains(res.Note, "(NAME=...), with ${NAME} here") || strings.Contains(res.Note, "API_KEY") {
		t.Errorf("a gateway token's note: %q", res.Note)
	}
}

func TestSetWritesAtomicallyWithMode0600(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new-home")
	if _, err := Set(dir, "agent.max_turns", "10"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestSetThroughSymlink(t *testing.T) {
	dir := home(t, map[string]string{"real.yaml": "agent:\n  max_turns: 1\n"})
	if err := os.Symlink(filepath.Join(dir, "real.yaml"), filepath.Join(dir, "config.yaml")); err != nil {
		t.Skip(err)
	}
	if _, err := Set(dir, "agent.max_turns", "2"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "real.yaml")); got != "agent:\n  max_turns: 2\n" {
		t.Errorf("real.yaml = %q", got)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSetManyIsOneChange(t *testing.T) {
	dir := home(t, map[string]string{"config.yaml": handWritten})
	res, err := SetMany(dir, "model.provider", "openai", "model.default", "gpt-4o-mini", "model.base_url", "", "approvals.mode", "smart")
	if err != nil || len(res) != 4 {
		t.Fatalf("SetMany = %+v, %v", res, err)
	}
	got := readFile(t, filepath.Join(dir, "config.yaml"))
	for _, want := range []string{"# hermes configuration", "provider: openai    # the main provider", "gpt-4o-mini", "mode: smart", "max_turns: 90   # per turn"} {
		if !strings.Contains(got, want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, got)
		}
	}
	// One refused value leaves the file as it was, the earlier keys too.
	_, err = SetMany(dir, "model.provider", "anthropic", "approvals.mode", "sometimes")
	if err == nil || !strings.Contains(err.Error(), "approvals.mode") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("error %v, want one naming approvals.mode and saying nothing was written", err)
	}
	if after := readFile(t, filepath.Join(dir, "config.yaml")); after != got {
		t.Errorf("a refused SetMany changed config.yaml:\n%s", after)
	}
}
