package config

import (
	"reflect"
	"testing"
)

// FuzzLoad feeds arbitrary config.yaml and .env text through the loader,
// the renderers, the resolver and the editor: none of them may panic, and
// a successful Set must read back as the value set.
func FuzzLoad(f *testing.F) {
	seeds := [][2]string{
		{"", ""},
		{handWritten, "OPENROUTER_API_KEY=sk-or-v1-0123456789\nexport A='b'\n"},
		{"model: qwen3\nfallback_providers: [{provider: ollama, model: m}]\n", "HERMES_MODEL_PROVIDER=ollama\n"},
		{"base: &b {base_url: http://h/v1}\nproviders:\n  x: {<<: *b, model: m}\n  y: *b\n", "X=\"multi\nline\"\n"},
		{"model:\n  default: ${A:-x}${B}\n  api_mode: chat\nagent: {max_turns: -1, idle_timeout: 1h}\n", "A=\nB='q\n"},
		{"a: &a [*a]\nmodel: *a\n", "=\n"},
		{"- 1\n- 2\n", "export\n"},
		{"model:\n  default: |\n    multi\n    line\n  provider: \"openai\"\n", "OPENAI_API_KEY=k\n"},
		{"---\nmodel: {}\n---\nagent: {}\n", ""},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	env := MapLookup(map[string]string{"HOME": "/nonexistent", "HERMES_AGENT_MAX_TURNS": "3", "OPENAI_API_KEY": "sk-x"})
	paths := PathsFor("/nonexistent/.hermes")
	f.Fuzz(func(t *testing.T, yamlText, envText string) {
		l, err := load(env, nil, paths, []byte(yamlText), []byte(envText))
		if l == nil {
			t.Fatal("load returned no *Loaded")
		}
		if err == nil {
			_ = l.Show()
			for _, k := range []string{"model", "model.default", "providers", "fallback_providers[0].model", "agent.max_turns", "x.y"} {
				_, _ = l.Get(k)
			}
			_, _ = l.ResolveModel(ModelOverride{})
			_, _ = l.ResolveFallbacks()
		}
		for _, kv := range [][2]string{{"model.default", "x"}, {"providers.p.headers.X-A", "b"}, {"fallback_providers[0].model", "m"}} {
			out, _, err := setYAML([]byte(yamlText), kv[0], kv[1])
			if err != nil {
				continue
			}
			root, _, err := parseYAML(out, "config.yaml")
			if err != nil || root == nil {
				t.Fatalf("Set(%s) wrote unreadable YAML (%v):\n%s", kv[0], err, out)
			}
			c := Defaults()
			d := newDecoder("config.yaml", nil)
			d.decode(root, reflect.ValueOf(&c).Elem(), "", "", 0)
			segs, _ := splitKey(kv[0])
			var got string
			_ = walk(reflect.ValueOf(&c).Elem(), segs, nil, false, func(v reflect.Value, _ string) error {
				got = formatLeaf(v)
				return nil
			})
			if got != kv[1] && !d.tooDeep {
				t.Fatalf("Set(%s, %s) reads back %q from:\n%s\n(before:\n%s)", kv[0], kv[1], got, out, yamlText)
			}
		}
	})
}
