package config

import (
	"sort"
	"strings"
)

// ProviderInfo describes a provider hermes knows without configuration:
// where it lives, which protocol it speaks and where its key is found.
type ProviderInfo struct {
	// Name is the canonical name used in config.yaml.
	Name string
	// Aliases are other accepted names ("qwen" for dashscope).
	Aliases []string
	// BaseURL is the API root; empty means it must be configured.
	BaseURL string
	// APIMode is the protocol spoken.
	APIMode APIMode
	// KeyEnv are the variables holding the API key, tried in order; none
	// means the server needs no key.
	KeyEnv []string
	// Headers are sent with every request.
	Headers map[string]string
}

// NeedsKey reports whether requests without an API key would be refused.
func (p ProviderInfo) NeedsKey() bool { return len(p.KeyEnv) > 0 }

// autoOrder is the order "provider: auto" tries providers in.
var autoOrder = [...]string{"anthropic", "openai", "openrouter"}

// BuiltinProviders returns the providers hermes knows, in a stable order.
// The table is built on each call rather than at package init, so a
// program that never resolves a model pays nothing for it.
func BuiltinProviders() []ProviderInfo {
	return []ProviderInfo{
		{Name: "openai", BaseURL: "https://api.openai.com/v1", APIMode: ChatCompletions, KeyEnv: []string{"OPENAI_API_KEY"}},
		{Name: "anthropic", BaseURL: "https://api.anthropic.com", APIMode: AnthropicMessages, KeyEnv: []string{"ANTHROPIC_API_KEY"}},
		{Name: "openrouter", BaseURL: "https://openrouter.ai/api/v1", APIMode: ChatCompletions, KeyEnv: []string{"OPENROUTER_API_KEY"},
			Headers: map[string]string{"HTTP-Referer": "https://github.com/hermes-go/hermes", "X-Title": "hermes"}},
		{Name: "deepseek", BaseURL: "https://api.deepseek.com/v1", APIMode: ChatCompletions, KeyEnv: []string{"DEEPSEEK_API_KEY"}},
		{Name: "dashscope", Aliases: []string{"qwen"}, BaseURL: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", APIMode: ChatCompletions, KeyEnv: []string{"DASHSCOPE_API_KEY"}},
		{Name: "groq", BaseURL: "https://api.groq.com/openai/v1", APIMode: ChatCompletions, KeyEnv: []string{"GROQ_API_KEY"}},
		{Name: "mistral", BaseURL: "https://api.mistral.ai/v1", APIMode: ChatCompletions, KeyEnv: []string{"MISTRAL_API_KEY"}},
		{Name: "gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", APIMode: ChatCompletions, KeyEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
		{Name: "moonshot", Aliases: []string{"kimi"}, BaseURL: "https://api.moonshot.ai/v1", APIMode: ChatCompletions, KeyEnv: []string{"MOONSHOT_API_KEY"}},
		{Name: "ollama", BaseURL: "http://localhost:11434/v1", APIMode: ChatCompletions},
		{Name: "vllm", BaseURL: "http://localhost:8000/v1", APIMode: ChatCompletions},
		{Name: "llamacpp", BaseURL: "http://localhost:8080/v1", APIMode: ChatCompletions},
		{Name: "custom", APIMode: ChatCompletions},
	}
}

// LookupProvider finds a built-in provider by name or alias, ignoring case.
func LookupProvider(name string) (ProviderInfo, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, p := range BuiltinProviders() {
		if p.Name == name {
			return p, true
		}
		for _, a := range p.Aliases {
			if a == name {
				return p, true
			}
		}
	}
	return ProviderInfo{}, false
}

// providerNames lists the built-in names and aliases for messages.
func providerNames() string {
	var names []string
	for _, p := range BuiltinProviders() {
		names = append(names, p.Name)
		names = append(names, p.Aliases...)
	}
	return strings.Join(names, ", ")
}

// providerDef finds the providers entry for name: under the name as
// written, or under the canonical name or an alias of the same built-in
// provider, so that "qwen" finds an entry written as "dashscope".
func (c *Config) providerDef(name string) (Provider, string, bool) {
	if p, ok := c.Providers[name]; ok {
		return p, name, true
	}
	info, ok := LookupProvider(name)
	if !ok {
		return Provider{}, "", false
	}
	keys := make([]string, 0, len(c.Providers))
	for k := range c.Providers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if other, ok := LookupProvider(k); ok && other.Name == info.Name {
			return c.Providers[k], k, true
		}
	}
	return Provider{}, "", false
}

// knownProvider reports whether name is built in or defined.
func (c *Config) knownProvider(name string) bool {
	if _, ok := LookupProvider(name); ok {
		return true
	}
	_, ok := c.Providers[name]
	return ok
}

// isAuto reports whether a provider setting asks for detection.
func isAuto(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	return n == "" || n == "auto"
}
