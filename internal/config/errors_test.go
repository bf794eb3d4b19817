package config

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestErrorMessages pins the exact text of every kind of error, since
// people act on these messages and scripts may match them.
func TestErrorMessages(t *testing.T) {
	cases := []struct {
		name   string
		yaml   string
		dotenv string
		env    map[string]string
		flags  map[string]string
		want   []string
	}{
		{name: "enum", yaml: "model:\n  provider: openai\n\n\n\n\n  api_mode: chat\n",
			want: []string{`config.yaml:7: model.api_mode: "chat" is not accepted; use one of chat_completions, responses, anthropic_messages`}},
		{name: "integer", yaml: "agent:\n  api_max_retries: three\n",
			want: []string{`config.yaml:2: agent.api_max_retries: "three" is not an integer`}},
		{name: "too large", yaml: "agent:\n  max_turns: 99999999999999999999\n",
			want: []string{`config.yaml:2: agent.max_turns: "99999999999999999999" is too large`}},
		{name: "duration", yaml: "agent:\n  idle_timeout: soon\n",
			want: []string{`config.yaml:2: agent.idle_timeout: "soon" is not a duration; use a Go duration such as "90s" or "2m", or a number of seconds`}},
		{name: "negative duration", yaml: "agent:\n  fallback_cooldown: -5s\n",
			want: []string{`config.yaml:2: agent.fallback_cooldown: "-5s" is not accepted; use zero or more`}},
		{name: "url scheme", yaml: "model:\n  base_url: ftp://example.com\n",
			want: []string{`config.yaml:2: model.base_url: "ftp://example.com" is not accepted; use an http:// or https:// URL`}},
		{name: "url without host", yaml: "providers:\n  x:\n    base_url: localhost:8080\n",
			want: []string{`config.yaml:3: providers.x.base_url: "localhost:8080" is not accepted; use an http:// or https:// URL`}},
		{name: "variable name", yaml: "model:\n  api_key_env: $OPENAI_API_KEY\n",
			want: []string{`config.yaml:2: model.api_key_env: "$OPENAI_API_KEY" is not accepted; use a variable name such as "OPENROUTER_API_KEY"`}},
		{name: "timezone", yaml: "timezone: Mars/Olympus\n",
			want: []string{`config.yaml:1: timezone: "Mars/Olympus" is not accepted; use an IANA time zone such as "Asia/Shanghai" or "UTC"`}},
		{name: "section given a value", yaml: "agent: fast\n",
			want: []string{`config.yaml:1: agent: "fast" is not accepted; use a mapping of keys`}},
		{name: "list given a mapping", yaml: "fallback_providers:\n  provider: openai\n",
			want: []string{`config.yaml:2: fallback_providers: a mapping is not accepted; use a list`}},
		{name: "leaf given a list", yaml: "model:\n  default: [a, b]\n",
			want: []string{`config.yaml:2: model.default: a list is not accepted; use a single value`}},
		{name: "top level not a mapping", yaml: "- a\n- b\n",
			want: []string{`config.yaml:1: a list is not accepted; use a mapping of keys`}},
		{name: "fallback without provider", yaml: "fallback_providers:\n  - model: gpt-x\n",
			want: []string{`config.yaml:2: fallback_providers[0].provider: "" is not accepted; every fallback needs a provider, as in {provider: openrouter, model: NAME}`}},
		{name: "unknown provider", yaml: "model:\n  provider: opnai\n",
			want: []string{`config.yaml:2: model.provider: "opnai" is not accepted; use auto, one of openai, anthropic, openrouter, deepseek, dashscope, qwen, groq, mistral, gemini, moonshot, kimi, ollama, vllm, llamacpp, custom, or a name defined under providers`}},
		{name: "unknown fallback provider", yaml: "fallback_providers:\n  - provider: nowhere\n    model: m\n",
			want: []string{`config.yaml:2: fallback_providers[0].provider: "nowhere" is not accepted; use one of openai, anthropic, openrouter, deepseek, dashscope, qwen, groq, mistral, gemini, moonshot, kimi, ollama, vllm, llamacpp, custom, or a name defined under providers`}},
		{name: "custom provider without base_url", yaml: "providers:\n  mine:\n    api_key_env: MINE_KEY\n",
			want: []string{`config.yaml:3: providers.mine.base_url: "" is not accepted; a provider that is not built in needs a base_url`}},
		{name: "syntax: mapping values", yaml: "model:\n  provider: openai\n  default: a: b\n",
			want: []string{`config.yaml:3: invalid YAML: mapping values are not allowed in this context`}},
		{name: "syntax: first line", yaml: "a: b: c\n",
			want: []string{`config.yaml:1: invalid YAML: mapping values are not allowed in this context`}},
		{name: "syntax: unclosed flow", yaml: "agent:\n  max_turns: 3\nfallback_providers: [{provider: a}\n",
			want: []string{`config.yaml:3: invalid YAML: did not find expected ',' or ']'`}},
		{name: "syntax: tab", yaml: "model:\n\tprovider: openai\n",
			want: []string{`config.yaml:2: invalid YAML: found character that cannot start any token`}},
		{name: "process env names the variable", env: map[string]string{"HERMES_AGENT_API_MAX_RETRIES": "three"},
			want: []string{`env HERMES_AGENT_API_MAX_RETRIES: agent.api_max_retries: "three" is not an integer`}},
		{name: ".env override names line and variable", dotenv: "# x\nHERMES_MODEL_API_MODE=chat\n",
			want: []string{`.env:2 HERMES_MODEL_API_MODE: model.api_mode: "chat" is not accepted; use one of chat_completions, responses, anthropic_messages`}},
		{name: "flag value", flags: map[string]string{"agent.connect_timeout": "-1"},
			want: []string{`command line: agent.connect_timeout: "-1" is not accepted; use zero or more`}},
		{name: "flag unknown key", flags: map[string]string{"agent.max_turn": "3"},
			want: []string{`command line: unknown key "agent.max_turn" (did you mean "agent.max_turns"?)`}},
		{name: "flag on a section", flags: map[string]string{"agent": "3"},
			want: []string{`command line: agent is a section; set one of its keys, such as agent.api_max_retries`}},
		{name: "flag provider must be known", flags: map[string]string{"model.provider": "nope"},
			want: []string{`command line: model.provider: "nope" is not accepted; use auto, one of openai, anthropic, openrouter, deepseek, dashscope, qwen, groq, mistral, gemini, moonshot, kimi, ollama, vllm, llamacpp, custom, or a name defined under providers`}},
		{name: "secret not echoed", env: map[string]string{"HERMES_PROVIDERS_X_API_KEY": "sk-secret-value-0123456789"}, yaml: "providers:\n  x:\n    base_url: http://h/v1\n    api_key: [sk-secret-value-0123456789]\n",
			want: []string{`config.yaml:4: providers.x.api_key: a list is not accepted; use a single value`}},
		{name: "several layers at once", yaml: "model:\n  api_mode: chat\n", dotenv: "HERMES_AGENT_MAX_TURNS=many\nbroken\n", env: map[string]string{"HERMES_AGENT_IDLE_TIMEOUT": "x"}, flags: map[string]string{"agent.max_turns": "-2"},
			want: []string{
				`.env:2: not a KEY=VALUE line`,
				`config.yaml:2: model.api_mode: "chat" is not accepted; use one of chat_completions, responses, anthropic_messages`,
				`env HERMES_AGENT_IDLE_TIMEOUT: agent.idle_timeout: "x" is not a duration; use a Go duration such as "90s" or "2m", or a number of seconds`,
				`.env:1 HERMES_AGENT_MAX_TURNS: agent.max_turns: "many" is not an integer`,
				`command line: agent.max_turns: "-2" is not accepted; use zero or more`,
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			if tc.yaml != "" {
				files["config.yaml"] = tc.yaml
			}
			if tc.dotenv != "" {
				files[".env"] = tc.dotenv
			}
			_, err := loadFiles(t, files, tc.env, tc.flags)
			if got := errorLines(err); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if err != nil && strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("a secret leaked into %q", err)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []string
	}{
		{"top-level typo", "# hermes\n\nmodle:\n  default: x\n", []string{`config.yaml:3: unknown key "modle" (did you mean "model"?)`}},
		{"nested typo", "agent:\n  max_turn: 3\n", []string{`config.yaml:2: unknown key "agent.max_turn" (did you mean "agent.max_turns"?)`}},
		{"provider field typo", "providers:\n  p:\n    base_ur: http://h/v1\n    base_url: http://h/v1\n", []string{`config.yaml:3: unknown key "providers.p.base_ur" (did you mean "providers.p.base_url"?)`}},
		{"unknown without suggestion", "bridge:\n  telegram: {}\n", []string{`config.yaml:1: unknown key "bridge"`}},
		{"several suggestions", "agent:\n  idle_timeou: 3s\n", []string{`config.yaml:2: unknown key "agent.idle_timeou" (did you mean "agent.idle_timeout"?)`}},
		{"repeated key", "model:\n  default: a\nmodel:\n  provider: openai\n", []string{`config.yaml:3: key "model" is repeated (first on line 1); the later one wins`}},
		{"second document", "model:\n  default: a\n---\nmodel:\n  default: b\n", []string{`config.yaml:3: only the first YAML document is read; the rest is ignored`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := mustLoad(t, map[string]string{"config.yaml": tc.yaml}, nil, nil)
			if !reflect.DeepEqual(l.Warnings, tc.want) {
				t.Errorf("Warnings:\n%s\nwant:\n%s", strings.Join(l.Warnings, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestWarningsSurviveErrors(t *testing.T) {
	l, err := loadFiles(t, map[string]string{"config.yaml": "modle:\n  api_mode: x\nagent:\n  max_turns: x\n"}, nil, nil)
	if err == nil || l == nil || len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], `"modle"`) {
		t.Fatalf("Load = %+v, %v; want the warning beside the error", l, err)
	}
}

func TestYAMLFeatures(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": `
base: &base
  base_url: http://gpu:8000/v1
  api_mode: chat_completions
providers:
  a:
    <<: *base
    model: m-a
  b:
    <<: *base
    base_url: http://other:8000/v1
model: qwen3-coder
`}, nil, nil)
	c := l.Config
	if c.Providers["a"].BaseURL != "http://gpu:8000/v1" || c.Providers["a"].Model != "m-a" || c.Providers["b"].BaseURL != "http://other:8000/v1" {
		t.Errorf("merge keys: %+v", c.Providers)
	}
	if c.Model.Default != "qwen3-coder" || l.Origin("model.default") != "config.yaml:12" {
		t.Errorf("model shorthand: %+v from %s", c.Model, l.Origin("model.default"))
	}
	if len(l.Warnings) != 1 || l.Warnings[0] != `config.yaml:2: unknown key "base"` {
		t.Errorf("Warnings = %q", l.Warnings)
	}
}

func TestAliasBombIsRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 {base_url: http://h/v1}\n")
	for i := 1; i < 12; i++ {
		b.WriteString("a" + strconv.Itoa(i) + ": &a" + strconv.Itoa(i) + " {<<: [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + strconv.Itoa(i-1))
		}
		b.WriteString("]}\n")
	}
	b.WriteString("providers:\n  p: *a11\n")
	_, err := loadFiles(t, map[string]string{"config.yaml": b.String()}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "too deeply") {
		t.Fatalf("err = %v", err)
	}
	_, err = loadFiles(t, map[string]string{"config.yaml": "providers: &p\n  x: {<<: *p, base_url: http://h/v1}\n"}, nil, nil)
	_ = err // a self-referencing anchor must terminate; any result is fine
}
