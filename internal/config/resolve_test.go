package config

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

func TestResolveModel(t *testing.T) {
	cases := []struct {
		name   string
		yaml   string
		dotenv string
		env    map[string]string
		ov     ModelOverride
		want   Resolved // Headers and Timeouts are not compared
	}{
		{name: "built-in openai",
			yaml: "model:\n  provider: openai\n  default: gpt-4.1\n", env: map[string]string{"OPENAI_API_KEY": "sk-openai-000000000001"},
			want: Resolved{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIMode: ChatCompletions, APIKey: "sk-openai-000000000001", KeySource: "env OPENAI_API_KEY", Model: "gpt-4.1"}},
		{name: "built-in anthropic speaks messages",
			yaml: "model:\n  provider: anthropic\n  default: claude-x\n", dotenv: "ANTHROPIC_API_KEY=sk-ant-1\n",
			want: Resolved{Provider: "anthropic", BaseURL: "https://api.anthropic.com", APIMode: AnthropicMessages, APIKey: "sk-ant-1", KeySource: ".env:1 ANTHROPIC_API_KEY", Model: "claude-x"}},
		{name: "alias qwen is dashscope",
			yaml: "model:\n  provider: qwen\n  default: qwen-max\n", env: map[string]string{"DASHSCOPE_API_KEY": "k"},
			want: Resolved{Provider: "dashscope", BaseURL: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", APIMode: ChatCompletions, APIKey: "k", KeySource: "env DASHSCOPE_API_KEY", Model: "qwen-max"}},
		{name: "gemini falls back to GOOGLE_API_KEY",
			yaml: "model:\n  provider: gemini\n  default: gemini-2.5-pro\n", env: map[string]string{"GOOGLE_API_KEY": "g"},
			want: Resolved{Provider: "gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", APIMode: ChatCompletions, APIKey: "g", KeySource: "env GOOGLE_API_KEY", Model: "gemini-2.5-pro"}},
		{name: "ollama needs no key",
			yaml: "model:\n  provider: ollama\n  default: llama3\n  context_length: 8192\n",
			want: Resolved{Provider: "ollama", BaseURL: "http://localhost:11434/v1", APIMode: ChatCompletions, Model: "llama3", ContextLength: 8192}},
		{name: "custom provider from providers",
			yaml: "model:\n  provider: gpu\n  max_tokens: 1000\nproviders:\n  gpu:\n    base_url: http://gpu:8000/v1\n    api_key_env: GPU_KEY\n    model: qwen3\n    context_length: 32768\n    max_tokens: 500\n",
			env:  map[string]string{"GPU_KEY": "gk"},
			want: Resolved{Provider: "gpu", BaseURL: "http://gpu:8000/v1", APIMode: ChatCompletions, APIKey: "gk", KeySource: "env GPU_KEY", Model: "qwen3", ContextLength: 32768, MaxTokens: 1000}},
		{name: "custom with model.base_url",
			yaml: "model:\n  provider: custom\n  base_url: http://box:1234/v1\n  default: m\n  api_mode: responses\n",
			want: Resolved{Provider: "custom", BaseURL: "http://box:1234/v1", APIMode: Responses, Model: "m"}},
		{name: "auto with base_url means custom",
			yaml: "model:\n  base_url: http://box:1234/v1\n  default: m\n",
			want: Resolved{Provider: "custom", BaseURL: "http://box:1234/v1", APIMode: ChatCompletions, Model: "m"}},
		{name: "providers entry overrides a built-in",
			yaml: "model:\n  provider: openai\n  default: gpt\nproviders:\n  openai:\n    base_url: https://proxy.example/v1\n", env: map[string]string{"OPENAI_API_KEY": "k"},
			want: Resolved{Provider: "openai", BaseURL: "https://proxy.example/v1", APIMode: ChatCompletions, APIKey: "k", KeySource: "env OPENAI_API_KEY", Model: "gpt"}},
		{name: "auto picks anthropic first",
			yaml: "model:\n  default: m\n", env: map[string]string{"OPENROUTER_API_KEY": "or", "ANTHROPIC_API_KEY": "an", "OPENAI_API_KEY": "oa"},
			want: Resolved{Provider: "anthropic", BaseURL: "https://api.anthropic.com", APIMode: AnthropicMessages, APIKey: "an", KeySource: "env ANTHROPIC_API_KEY", Model: "m"}},
		{name: "auto finds openrouter in .env",
			yaml: "model:\n  provider: auto\n  default: m\n", dotenv: "OPENROUTER_API_KEY=or\n",
			want: Resolved{Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1", APIMode: ChatCompletions, APIKey: "or", KeySource: ".env:1 OPENROUTER_API_KEY", Model: "m"}},
		{name: "flags beat everything",
			yaml: "model:\n  provider: openai\n  default: gpt\n", env: map[string]string{"OPENAI_API_KEY": "env-key"},
			ov:   ModelOverride{Model: "o3", BaseURL: "http://flag/v1", APIMode: "responses", APIKey: "flag-key"},
			want: Resolved{Provider: "openai", BaseURL: "http://flag/v1", APIMode: Responses, APIKey: "flag-key", KeySource: "command line", Model: "o3"}},
		{name: "flag provider drops the model section",
			yaml: "model:\n  provider: openai\n  default: gpt\n  base_url: http://openai-proxy/v1\n", ov: ModelOverride{Provider: "ollama", Model: "llama3"},
			want: Resolved{Provider: "ollama", BaseURL: "http://localhost:11434/v1", APIMode: ChatCompletions, Model: "llama3"}},
		{name: "flag provider alias keeps the model section",
			yaml: "model:\n  provider: dashscope\n  default: qwen-max\n", env: map[string]string{"DASHSCOPE_API_KEY": "k"}, ov: ModelOverride{Provider: "qwen"},
			want: Resolved{Provider: "dashscope", BaseURL: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", APIMode: ChatCompletions, APIKey: "k", KeySource: "env DASHSCOPE_API_KEY", Model: "qwen-max"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"config.yaml": tc.yaml}
			if tc.dotenv != "" {
				files[".env"] = tc.dotenv
			}
			l := mustLoad(t, files, tc.env, nil)
			got, err := l.ResolveModel(tc.ov)
			if err != nil {
				t.Fatal(err)
			}
			got.Headers, got.Timeouts = nil, llm.Timeouts{}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || got.APIKey != tc.want.APIKey {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestKeyPrecedence removes the key sources from the top: flag > process
// environment > .env > model.api_key > providers.NAME.api_key.
func TestKeyPrecedence(t *testing.T) {
	cases := []struct {
		flag, env, dotenv, model, provider bool
		want, source                       string
	}{
		{true, true, true, true, true, "k-flag", "command line"},
		{false, true, true, true, true, "k-env", "env OR_KEY"},
		{false, false, true, true, true, "k-dotenv", ".env:1 OR_KEY"},
		{false, false, false, true, true, "k-model", "config.yaml:4"},
		{false, false, false, false, true, "k-provider", "config.yaml:8"},
	}
	for _, tc := range cases {
		t.Run(tc.source, func(t *testing.T) {
			y := "model:\n  provider: openrouter\n  default: m\n"
			if tc.model {
				y += "  api_key: k-model\n"
			} else {
				y += "  context_length: 1\n"
			}
			y += "  api_key_env: OR_KEY\nproviders:\n  openrouter:\n"
			if tc.provider {
				y += "    api_key: k-provider\n"
			}
			files := map[string]string{"config.yaml": y}
			if tc.dotenv {
				files[".env"] = "OR_KEY=k-dotenv\n"
			}
			env := map[string]string{"OPENROUTER_API_KEY": "ignored: api_key_env names another variable"}
			if tc.env {
				env["OR_KEY"] = "k-env"
			}
			var ov ModelOverride
			if tc.flag {
				ov.APIKey = "k-flag"
			}
			r, err := mustLoad(t, files, env, nil).ResolveModel(ov)
			if err != nil {
				t.Fatal(err)
			}
			if string(r.APIKey) != tc.want || r.KeySource != tc.source {
				t.Errorf("key %q from %q, want %q from %q", string(r.APIKey), r.KeySource, tc.want, tc.source)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		env  map[string]string
		ov   ModelOverride
		want string
	}{
		{name: "nothing configured",
			want: "no model provider configured: set OPENROUTER_API_KEY (or OPENAI_API_KEY / ANTHROPIC_API_KEY) in ~/.hermes/.env, or run: hermes config set model.provider ollama"},
		{name: "key missing",
			yaml: "model:\n  provider: openai\n  default: gpt\n",
			want: "provider openai needs an API key: set OPENAI_API_KEY in ~/.hermes/.env (or export it)"},
		{name: "gemini key missing names both variables",
			yaml: "model:\n  provider: gemini\n  default: g\n",
			want: "provider gemini needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) in ~/.hermes/.env (or export it)"},
		{name: "api_key_env unset",
			yaml: "model:\n  provider: gpu\nproviders:\n  gpu:\n    base_url: http://gpu/v1\n    api_key_env: GPU_KEY\n    model: m\n",
			want: "provider gpu needs an API key: set GPU_KEY in ~/.hermes/.env (or export it)"},
		{name: "model missing",
			yaml: "model:\n  provider: ollama\n",
			want: "no model chosen for provider ollama: run: hermes config set model.default MODEL_NAME"},
		{name: "custom without base_url and model",
			yaml: "model:\n  provider: custom\n",
			want: "provider custom needs a base URL: run: hermes config set model.base_url http://HOST:PORT/v1\nno model chosen for provider custom: run: hermes config set model.default MODEL_NAME"},
		{name: "unknown flag provider",
			ov:   ModelOverride{Provider: "nope", Model: "m"},
			want: `provider "nope" is not accepted; use one of openai, anthropic, openrouter, deepseek, dashscope, qwen, groq, mistral, gemini, moonshot, kimi, ollama, vllm, llamacpp, custom, or define it under providers in ~/.hermes/config.yaml`},
		{name: "bad flag values",
			ov:   ModelOverride{APIMode: "chat", BaseURL: "gopher://x"},
			want: "command line: model.api_mode: \"chat\" is not accepted; use one of chat_completions, responses, anthropic_messages\ncommand line: model.base_url: \"gopher://x\" is not accepted; use an http:// or https:// URL"},
		{name: "flag provider without model",
			yaml: "model:\n  provider: openai\n  default: gpt\n", ov: ModelOverride{Provider: "ollama"},
			want: "no model chosen for provider ollama: name one on the command line, or set providers.ollama.model"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"HOME": "/home/u", "HERMES_HOME": "/home/u/.hermes"}
			for k, v := range tc.env {
				env[k] = v
			}
			files := map[string]string{"config.yaml": tc.yaml}
			l, err := Load(LoadOptions{Home: home(t, files), Env: MapLookup(env)})
			if err != nil {
				t.Fatal(err)
			}
			l.Paths = PathsFor("/home/u/.hermes") // as if loaded from the real home
			_, err = l.ResolveModel(tc.ov)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant  %s", err, tc.want)
			}
		})
	}
}

func TestResolveFallbacks(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": `
model:
  provider: openrouter
  default: main-model
  api_key: sk-or-from-config-000
fallback_providers:
  - provider: openrouter
    model: cheap-model
  - provider: gpu
  - provider: groq
    model: llama
  - provider: kimi
providers:
  gpu:
    base_url: http://gpu/v1
    model: gpu-default
`}, map[string]string{"MOONSHOT_API_KEY": "mk"}, nil)
	got, err := l.ResolveFallbacks()
	want := "fallback_providers[2]: provider groq needs an API key: set GROQ_API_KEY in " + tildePath(l.Paths.EnvFile, nil) + " (or export it)\n" +
		"fallback_providers[3]: no model chosen for provider moonshot: add model: to fallback_providers[3], or set providers.kimi.model"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
	if len(got) != 2 {
		t.Fatalf("got %d endpoints: %v", len(got), got)
	}
	if got[0].Provider != "openrouter" || got[0].Model != "cheap-model" || string(got[0].APIKey) != "sk-or-from-config-000" || got[0].KeySource != "config.yaml:5" {
		t.Errorf("fallback 0 = %v", got[0])
	}
	if got[1].Provider != "gpu" || got[1].Model != "gpu-default" || got[1].BaseURL != "http://gpu/v1" || got[1].APIKey != "" {
		t.Errorf("fallback 1 = %v", got[1])
	}
}

func TestResolvedEndpointAndTimeouts(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": `
model: {provider: openrouter, default: m}
agent: {connect_timeout: 5, first_byte_timeout: 1m, idle_timeout: 30s}
providers:
  openrouter:
    headers: {X-Title: mine, X-Extra: "1"}
`}, map[string]string{"OPENROUTER_API_KEY": "sk-or-v1-0123456789abcdef"}, nil)
	r, err := l.ResolveModel(ModelOverride{})
	if err != nil {
		t.Fatal(err)
	}
	wantT := llm.Timeouts{Connect: 5 * time.Second, FirstByte: time.Minute, Idle: 30 * time.Second}
	if r.Timeouts != wantT {
		t.Errorf("Timeouts = %+v", r.Timeouts)
	}
	if r.Headers["X-Title"] != "mine" || r.Headers["HTTP-Referer"] == "" || r.Headers["X-Extra"] != "1" {
		t.Errorf("Headers = %v", r.Headers)
	}
	ep := r.Endpoint()
	if ep.Name != "openrouter" || ep.APIKey != "sk-or-v1-0123456789abcdef" || ep.Model != "m" || ep.BaseURL != "https://openrouter.ai/api/v1" || ep.Timeouts != wantT {
		t.Errorf("Endpoint = %+v", ep)
	}
}

// TestResolvedNeverPrintsTheKey formats a Resolved every way a log line
// might.
func TestResolvedNeverPrintsTheKey(t *testing.T) {
	r := Resolved{Provider: "openai", Model: "gpt", BaseURL: "https://api.openai.com/v1", APIMode: ChatCompletions,
		APIKey: "sk-proj-SECRETSECRETabcd", KeySource: "env OPENAI_API_KEY"}
	js, _ := json.Marshal(r)
	outs := []string{fmt.Sprint(r), fmt.Sprintf("%v %+v %#v %s %q %x", r, r, r, r, r, r), r.String(), string(js),
		fmt.Sprintf("%v %+v %#v %s %q %x %d", r.APIKey, r.APIKey, r.APIKey, r.APIKey, r.APIKey, r.APIKey, r.APIKey)}
	for _, out := range outs {
		if strings.Contains(out, "SECRET") {
			t.Errorf("key leaked: %s", out)
		}
	}
	want := "provider=openai model=gpt base_url=https://api.openai.com/v1 api_mode=chat_completions api_key=sk-…abcd (from env OPENAI_API_KEY)"
	if r.String() != want {
		t.Errorf("String() = %q\nwant       %q", r.String(), want)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "(not set)",
		"short":                     "****",
		"sk-0123456789ab":           "****",
		"sk-0123456789abc":          "sk-…9abc",
		"sk-ant-api03-aaaaaaaaWXYZ": "sk-…WXYZ",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLookupProvider(t *testing.T) {
	for name, want := range map[string]string{"openai": "openai", "QWEN": "dashscope", "kimi": "moonshot", " gemini ": "gemini"} {
		if p, ok := LookupProvider(name); !ok || p.Name != want {
			t.Errorf("LookupProvider(%q) = %v, %v", name, p.Name, ok)
		}
	}
	if _, ok := LookupProvider("auto"); ok {
		t.Error("auto is not a provider")
	}
	for _, p := range BuiltinProviders() {
		if p.APIMode == "" || (p.BaseURL == "") != (p.Name == "custom") {
			t.Errorf("incomplete entry %+v", p)
		}
	}
}
