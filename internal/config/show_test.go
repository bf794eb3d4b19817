package config

import (
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": `
model:
  provider: openrouter
  default: m
  api_key: sk-or-v1-0123456789abcdef
providers:
  gpu:
    base_url: http://gpu/v1
    headers: {X-Team: core}
fallback_providers:
  - {provider: gpu, model: small}
agent:
  idle_timeout: 90
`}, map[string]string{"HERMES_AGENT_MAX_TURNS": "12"}, nil)
	cases := []struct{ key, want string }{
		{"model.provider", "openrouter"},
		{"model.api_key", "sk-or-v1-0123456789abcdef"},
		{"agent.max_turns", "12"},
		{"agent.idle_timeout", "1m30s"},
		{"agent.fallback_cooldown", "5m"},
		{"agent.first_byte_timeout", "5m"},
		{"agent.api_retry_base_delay", "2s"},
		{"timezone", ""},
		{"providers.gpu.base_url", "http://gpu/v1"},
		{"providers.gpu.headers.X-Team", "core"},
		{"providers.other.base_url", ""},
		{"fallback_providers[0].model", "small"},
		{"fallback_providers.0.provider", "gpu"},
		{"model", "provider: openrouter\ndefault: m\nbase_url: \"\"\napi_mode: \"\"\napi_key: sk-…cdef\napi_key_env: \"\"\ncontext_length: 0\nmax_tokens: 0\ncache_ttl: \"\"\n"},
		{"fallback_providers", "- provider: gpu\n  model: small\n"},
	}
	for _, tc := range cases {
		if got, err := l.Get(tc.key); err != nil || got != tc.want {
			t.Errorf("Get(%q) = %q, %v; want %q", tc.key, got, err, tc.want)
		}
	}
	errs := []struct{ key, want string }{
		{"model.defualt", `unknown key "model.defualt" (did you mean "model.default"?)`},
		{"modle", `unknown key "modle" (did you mean "model"?)`},
		{"idle_timeout", `unknown key "idle_timeout" (did you mean "agent.idle_timeout"?)`},
		{"agent.max_turns.x", `unknown key "agent.max_turns.x" (did you mean "agent.max_turns"?)`},
		{"fallback_providers[3].model", "fallback_providers[3] is not accepted; use an index from 0 to 0"},
		{"nothing.like.it", `unknown key "nothing.like.it"`},
	}
	for _, tc := range errs {
		if _, err := l.Get(tc.key); err == nil || err.Error() != tc.want {
			t.Errorf("Get(%q) error = %v; want %q", tc.key, err, tc.want)
		}
	}
}

func TestShowRedactsSecrets(t *testing.T) {
	l := mustLoad(t, map[string]string{
		"config.yaml": `
model:
  provider: openrouter
  default: m
  api_key: ${OR_KEY}
providers:
  gpu:
    base_url: http://gpu/v1
    api_key: gpu-secret-0123456789
    headers:
      Authorization: Bearer tok-0123456789abcdef
      X-Api-Token: short
      X-Title: hermes
      X-Opaque: a1b2c3d4e5f6g7h8i9j0k1l2
      HTTP-Referer: https://github.com/hermes-go/hermes
`,
		".env": "OR_KEY=sk-or-v1-SECRET0123456789\n"}, nil, nil)
	out := l.Show()
	for _, secret := range []string{"SECRET", "gpu-secret", "tok-0123", "short", "a1b2c3"} {
		if strings.Contains(out, secret) {
			t.Errorf("Show leaked %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{
		"  api_key: sk-…6789\n", "    api_key: gpu…6789\n", "      Authorization: Bea…cdef\n", "      X-Api-Token: '****'\n",
		"      X-Title: hermes\n", "      HTTP-Referer: https://github.com/hermes-go/hermes\n", "  max_turns: 90\n", "  idle_timeout: 2m\n",
		"fallback_providers: []\n", "timezone: \"\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Show lacks %q:\n%s", want, out)
		}
	}
	if v, _ := l.Get("providers.gpu.headers.X-Title"); v != "hermes" {
		t.Errorf("Get header = %q", v)
	}
}

func TestShowIsLoadable(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": "model: {provider: ollama, default: llama3}\nagent: {max_turns: 7, idle_timeout: 90s}\nproviders: {gpu: {base_url: 'http://gpu/v1', model: '123'}}\n"}, nil, nil)
	again := mustLoad(t, map[string]string{"config.yaml": l.Show()}, nil, nil)
	if again.Show() != l.Show() || len(again.Warnings) != 0 {
		t.Errorf("Show does not round-trip:\n%s\n%s\n%q", l.Show(), again.Show(), again.Warnings)
	}
}
