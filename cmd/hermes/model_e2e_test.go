package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"os/exec"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// endpointFlags points model call at srv speaking api.
func endpointFlags(srv *llmtest.Server, api string) []string {
	base := srv.URL() + "/v1"
	if api == "anthropic_messages" {
		base = srv.URL()
	}
	return []string{"--api-mode", api, "--base-url", base, "--model", "test-model", "--api-key", "sk-test-123456"}
}

func TestModelCallJSON(t *testing.T) {
	tools := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(tools, []byte(`[
		{"type":"function","function":{"name":"weather","description":"Weather now","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},
		{"name":"clock","description":"Local time","input_schema":{"type":"object","properties":{}}}
	]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, api := range []string{"chat_completions", "responses", "anthropic_messages"} {
		for _, stream := range []bool{false, true} {
			t.Run(api+map[bool]string{true: "/stream", false: "/json"}[stream], func(t *testing.T) {
				srv := llmtest.New(t)
				srv.Enqueue(llmtest.Reply{
					Reasoning: "Need the weather.", Text: "Checking.",
					ToolCalls: []llm.ToolCall{{ID: "call_w1", Name: "weather", Arguments: `{"city":"Oslo"}`}},
					Usage:     &llm.Usage{InputTokens: 120, OutputTokens: 30, CacheReadTokens: 100, ReasoningTokens: 7},
				})
				args := append([]string{"model", "call", "--json", "--tools", tools}, endpointFlags(srv, api)...)
				if stream {
					args = append(args, "--stream")
				}
				r := newHome(t).hermes(append(args, "Weather in Oslo?")...)
				if r.code != 0 {
					t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
				}
				var got struct {
					Text      string `json:"text"`
					Reasoning string `json:"reasoning"`
					ToolCalls []struct {
						ID        string `json:"id"`
						Name      string `json:"name"`
						Arguments any    `json:"arguments"`
					} `json:"tool_calls"`
					FinishReason    string         `json:"finish_reason"`
					RawFinishReason string         `json:"raw_finish_reason"`
					Usage           map[string]int `json:"usage"`
					Model           string         `json:"model"`
				}
				r.decode(t, &got)
				if got.Text != "Checking." || got.Reasoning != "Need the weather." || got.FinishReason != "tool_calls" || got.Model != "test-model" {
					t.Errorf("got %+v", got)
				}
				if len(got.ToolCalls) != 1 || got.ToolCalls[0].ID != "call_w1" || got.ToolCalls[0].Name != "weather" ||
					!reflect.DeepEqual(got.ToolCalls[0].Arguments, map[string]any{"city": "Oslo"}) {
					t.Errorf("tool calls = %+v, want weather(call_w1) with parsed arguments", got.ToolCalls)
				}
				wantRaw := map[string]string{"chat_completions": "tool_calls", "responses": "completed", "anthropic_messages": "tool_use"}[api]
				if got.RawFinishReason != wantRaw {
					t.Errorf("raw_finish_reason = %q, want %q", got.RawFinishReason, wantRaw)
				}
				wantUsage := map[string]int{"input_tokens": 120, "output_tokens": 30, "cache_read_tokens": 100, "cache_write_tokens": 0, "reasoning_tokens": 7, "total_tokens": 150}
				if api == "anthropic_messages" {
					wantUsage["reasoning_tokens"] = 0 // Anthropic's wire has no reasoning count
				}
				if !reflect.DeepEqual(got.Usage, wantUsage) {
					t.Errorf("usage = %v, want %v", got.Usage, wantUsage)
				}
				reqs := srv.Requests()
				if len(reqs) != 1 || reqs[0].Stream != stream || len(reqs[0].Tools) != 2 || reqs[0].LastUserText() != "Weather in Oslo?" {
					t.Fatalf("server saw %d requests (stream %v, %d tools)", len(reqs), reqs[0].Stream, len(reqs[0].Tools))
				}
			})
		}
	}
}

func TestModelCallErrors(t *testing.T) {
	tests := []struct {
		name     string
		reply    llmtest.Reply
		stream   bool
		wantKind string
		wantCode string
	}{
		{"rate limited", llmtest.Reply{Status: 429, Error: &llmtest.ErrorReply{Type: "rate_limit_error", Code: "rate_limit_exceeded", Message: "slow down"}}, false, "rate_limited", "rate_limit_exceeded"},
		{"error inside a 200 stream", llmtest.Reply{Text: "par", Error: &llmtest.ErrorReply{Type: "invalid_request_error", Code: "tool_use_failed", Message: "bad tool call", InStream: true}}, true, "bad_request", "tool_use_failed"},
		{"auth", llmtest.Reply{Status: 401, Error: &llmtest.ErrorReply{Type: "invalid_request_error", Code: "invalid_api_key", Message: "Incorrect API key"}}, false, "auth", "invalid_api_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Enqueue(tt.reply, llmtest.Reply{Text: "a retry would get this"})
			args := append([]string{"model", "call", "--json"}, endpointFlags(srv, "chat_completions")...)
			if tt.stream {
				args = append(args, "--stream")
			}
			r := newHome(t).hermes(append(args, "hi")...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1; stdout %s", r.code, r.stdout)
			}
			var got struct {
				Error map[string]any `json:"error"`
			}
			r.decode(t, &got)
			if got.Error["kind"] != tt.wantKind || got.Error["code"] != tt.wantCode || got.Error["message"] == "" {
				t.Errorf("error = %v, want kind %s code %s", got.Error, tt.wantKind, tt.wantCode)
			}
			for _, k := range []string{"kind", "status", "type", "code", "message", "request_id"} {
				if _, ok := got.Error[k]; !ok {
					t.Errorf("error object lacks %q: %v", k, got.Error)
				}
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("made %d attempts, want exactly one", n)
			}
		})
	}
}

func TestModelCallRetries(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Status: 500, Error: &llmtest.ErrorReply{Type: "server_error", Message: "boom"}}, llmtest.Reply{Text: "second time lucky"})
	h := newHome(t)
	h.write("config.yaml", "agent:\n  api_retry_base_delay: 10ms\n")
	r := h.hermes(append(append([]string{"model", "call", "--json", "--retries", "2"}, endpointFlags(srv, "chat_completions")...), "hi")...)
	var got struct{ Text string }
	r.decode(t, &got)
	if r.code != 0 || got.Text != "second time lucky" || len(srv.Requests()) != 2 {
		t.Fatalf("exit %d, text %q, %d requests; stderr %s", r.code, got.Text, len(srv.Requests()), r.stderr)
	}
	if !strings.Contains(r.stderr, "retrying") {
		t.Errorf("the retry was not logged: %s", r.stderr)
	}
}

func TestModelCallHumanOutput(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Reasoning: "hmm", Text: "Hello there"})
	r := newHome(t).hermes(append(append([]string{"model", "call", "--stream"}, endpointFlags(srv, "chat_completions")...), "hi")...)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Hello there" {
		t.Fatalf("stdout %q exit %d", r.stdout, r.code)
	}
	if !strings.Contains(r.stderr, "[thinking] hmm") || !strings.Contains(r.stderr, "finish stop") {
		t.Errorf("stderr lacks the reasoning or the summary: %q", r.stderr)
	}
}

// TestConfiguredModelAndPrecedence checks that model call uses the
// configuration when given no endpoint flags, and the layer order:
// flag > environment > .env > config.yaml.
func TestConfiguredModelAndPrecedence(t *testing.T) {
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h := newHome(t)
	h.write("config.yaml", "model:\n  provider: local\n  default: from-yaml\nproviders:\n  local:\n    base_url: "+srv.URL()+"/v1\n    api_key_env: LOCAL_KEY\n")
	h.write(".env", "LOCAL_KEY=sk-from-dotenv-0001\n")
	model := func(extraEnv []string, args ...string) (string, string) {
		t.Helper()
		r := h.run(append([]string{"model", "call", "--json"}, append(args, "hi")...), extraEnv...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
		last := srv.Requests()[len(srv.Requests())-1]
		return last.Model, last.Header.Get("Authorization")
	}
	if m, auth := model(nil); m != "from-yaml" || auth != "Bearer sk-from-dotenv-0001" {
		t.Errorf("config.yaml + .env: model %q auth %q", m, auth)
	}
	env := []string{"HERMES_MODEL_DEFAULT=from-env", "LOCAL_KEY=sk-from-env-0002"}
	if m, auth := model(env); m != "from-env" || auth != "Bearer sk-from-env-0002" {
		t.Errorf("environment: model %q auth %q", m, auth)
	}
	if m, _ := model(env, "--model", "from-flag"); m != "from-flag" {
		t.Errorf("flag: model %q", m)
	}
}

func TestModelCallFallback(t *testing.T) {
	primary, backup := llmtest.New(t), llmtest.New(t)
	primary.Handle(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Status: 503, Error: &llmtest.ErrorReply{Type: "overloaded_error", Message: "busy"}}
	})
	backup.Enqueue(llmtest.Reply{Text: "backup answered"})
	h := newHome(t)
	h.write("config.yaml", strings.Join([]string{
		"model: {provider: main, default: main-model}",
		"providers:",
		"  main: {base_url: " + primary.URL() + "/v1}",
		"  spare: {base_url: " + backup.URL() + "/v1}",
		"fallback_providers: [{provider: spare, model: spare-model}]",
		"agent: {api_max_retries: 1, api_retry_base_delay: 10ms}",
	}, "\n")+"\n")
	r := h.hermes("model", "call", "--json", "--fallback", "hi")
	var got struct{ Text, Model string }
	r.decode(t, &got)
	if r.code != 0 || got.Text != "backup answered" {
		t.Fatalf("exit %d, got %+v, stderr %s", r.code, got, r.stderr)
	}
	if n := len(primary.Requests()); n != 2 {
		t.Errorf("primary got %d requests, want 2 (one retry)", n)
	}
	if m := backup.Requests()[0].Model; m != "spare-model" {
		t.Errorf("backup asked for model %q, want spare-model", m)
	}
}

func TestModelList(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetModels("alpha", "beta")
	r := newHome(t).hermes("model", "list", "--base-url", srv.URL()+"/v1")
	if r.code != 0 || strings.Fields(r.stdout)[0] != "alpha" || !strings.Contains(r.stdout, "beta") {
		t.Fatalf("model list: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestInterruptStopsTheCall sends SIGINT while a reply is streaming: the
// call must end at once with a canceled error, not hang on the server.
func TestInterruptStopsTheCall(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "this never finishes", StallAfter: 2})
	h := newHome(t)
	cmd := exec.Command(hermesBin, append(append([]string{"model", "call", "--json", "--stream"}, endpointFlags(srv, "chat_completions")...), "hi")...)
	cmd.Env = h.env
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the server has the request, then interrupt.
	for deadline := time.Now().Add(10 * time.Second); len(srv.Requests()) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("hermes never reached the server")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("hermes did not stop after SIGINT")
	}
	var got struct{ Error struct{ Kind string } }
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil || got.Error.Kind != "canceled" || cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("after SIGINT: exit %d, stdout %q", cmd.ProcessState.ExitCode(), out.String())
	}
}

// The wire protocol is --api-mode everywhere; model call's old --api still
// works, with a notice naming the new spelling.
func TestModelCallOldAPIFlag(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "pong"})
	args := append([]string{"model", "call"}, endpointFlags(srv, "chat_completions")...)
	args[2] = "--api"
	r := newHome(t).hermes(append(args, "ping")...)
	if r.code != 0 || !strings.Contains(r.stdout, "pong") || !strings.Contains(r.stderr, "use --api-mode") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	for _, sub := range [][]string{{"chat"}, {"model", "call"}, {"batch", "run"}, {"team", "run"}} {
		r := newHome(t).hermes(append(sub, "--help")...)
		if !strings.Contains(r.stdout, "--api-mode") || strings.Contains(r.stdout, "--api ") {
			t.Errorf("hermes %s --help does not spell the protocol flag --api-mode:\n%s", strings.Join(sub, " "), r.stdout)
		}
	}
}
