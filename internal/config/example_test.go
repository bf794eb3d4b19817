package config_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/config"
)

func ExampleLoad() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("model:\n  provider: openrouter\n  default: anthropic/claude-sonnet-4\n"), 0o600)
	os.WriteFile(filepath.Join(home, ".env"), []byte("OPENROUTER_API_KEY=sk-or-v1-0123456789abcdef\n"), 0o600)

	l, err := config.Load(config.LoadOptions{
		Home:      home,
		Env:       config.MapLookup(map[string]string{"HERMES_AGENT_MAX_TURNS": "40"}),
		Overrides: map[string]string{"agent.idle_timeout": "90"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := l.ResolveModel(config.ModelOverride{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r)
	fmt.Println(l.Config.Agent.MaxTurns, l.Origin("agent.max_turns"))
	idle, _ := l.Get("agent.idle_timeout")
	fmt.Println(idle, l.Origin("agent.idle_timeout"))
	// Output:
	// provider=openrouter model=anthropic/claude-sonnet-4 base_url=https://openrouter.ai/api/v1 api_mode=chat_completions api_key=sk-…cdef (from .env:1 OPENROUTER_API_KEY) headers=HTTP-Referer,X-Title
	// 40 env HERMES_AGENT_MAX_TURNS
	// 1m30s command line
}

func ExampleLoad_errors() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("modle: x\nmodel:\n  api_mode: chat\nagent:\n  api_max_retries: three\n"), 0o600)

	l, err := config.Load(config.LoadOptions{Home: home, Env: config.MapLookup(nil)})
	fmt.Println(err)
	fmt.Println(l.Warnings[0])
	// Output:
	// config.yaml:3: model.api_mode: "chat" is not accepted; use one of chat_completions, responses, anthropic_messages
	// config.yaml:5: agent.api_max_retries: "three" is not an integer
	// config.yaml:1: unknown key "modle" (did you mean "model"?)
}

func ExampleSet() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("# my setup\nmodel:\n  provider: ollama   # local GPU\n  default: llama3\n"), 0o600)

	if _, err := config.Set(home, "model.default", "qwen3-coder"); err != nil {
		fmt.Println(err)
	}
	if _, err := config.Set(home, "agent.max_turns", "40"); err != nil {
		fmt.Println(err)
	}
	_, err := config.Set(home, "model.api_mode", "chat")
	fmt.Println(err)
	data, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	fmt.Print(string(data))
	// Output:
	// model.api_mode: "chat" is not accepted; use one of chat_completions, responses, anthropic_messages
	// # my setup
	// model:
	//   provider: ollama   # local GPU
	//   default: qwen3-coder
	// agent:
	//   max_turns: 40
}
