package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// setupKey is the key the setup tests configure; no output may hold it.
const setupKey = "sk-setup-test-4c0ffee1234567890abcdef"

// keyServer is a model server that answers only requests carrying key.
func keyServer(t *testing.T, key string) *llmtest.Server {
	srv := llmtest.New(t)
	srv.SetModels("m-one", "m-two")
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if r.Header.Get("Authorization") != "Bearer "+key {
			return llmtest.Reply{Status: 401, Error: &llmtest.ErrorReply{Message: "Incorrect API key provided: " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")}}
		}
		return llmtest.Reply{Text: "OK"}
	})
	return srv
}

func (h *home) read(name string) string {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.dir, name))
	if err != nil && !os.IsNotExist(err) {
		h.t.Fatal(err)
	}
	return string(data)
}

// noKeyIn fails when any of outs holds one of keys.
func noKeyIn(t *testing.T, where string, out string, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if strings.Contains(out, k) {
			t.Errorf("%s holds the secret %q:\n%s", where, k, out)
		}
	}
}

func TestSetupNonInteractiveWritesEnvAndConfig(t *testing.T) {
	srv := keyServer(t, setupKey)
	h := newHome(t)
	h.write("config.yaml", "# my settings\nagent:\n  max_turns: 40  # enough\n")
	h.write(".env", "# other secrets\nGITHUB_TOKEN=ghp-keep-me\n")
	if err := os.Chmod(filepath.Join(h.dir, ".env"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.run([]string{"setup", "--non-interactive", "--provider", "openai", "--base-url", srv.URL() + "/v1",
		"--api-key-env", "MY_KEY", "--model", "m-two", "--approvals", "smart"}, "MY_KEY="+setupKey)
	if r.code != 0 {
		t.Fatalf("setup: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	noKeyIn(t, "stdout", r.stdout, setupKey)
	noKeyIn(t, "stderr", r.stderr, setupKey)
	env := h.read(".env")
	if !strings.Contains(env, "OPENAI_API_KEY="+setupKey+"\n") || !strings.Contains(env, "GITHUB_TOKEN=ghp-keep-me") || !strings.HasPrefix(env, "# other secrets\n") {
		t.Errorf(".env is\n%s", env)
	}
	if fi, _ := os.Stat(filepath.Join(h.dir, ".env")); fi.Mode().Perm() != 0o600 {
		t.Errorf(".env has mode %04o, want 0600", fi.Mode().Perm())
	}
	cfg := h.read("config.yaml")
	noKeyIn(t, "config.yaml", cfg, setupKey)
	for _, want := range []string{"# my settings", "max_turns: 40  # enough", "provider: openai", "default: m-two", "base_url: " + srv.URL() + "/v1", "mode: smart"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cfg)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "m-two" {
		t.Fatalf("the server got %d model calls (%+v), want the one test call to m-two", len(reqs), reqs)
	}
	for _, want := range []string{"hermes chat", "hermes chat -q", `hermes model call "Say hello"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("setup does not suggest %q:\n%s", want, r.stdout)
		}
	}
	// What setup wrote is what hermes uses, with no key in the shell.
	if r := h.hermes("model", "call", "hi"); r.code != 0 || !strings.Contains(r.stdout, "OK") {
		t.Errorf("model call after setup: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestSetupMissingModelNamesTheListed: without --model and nothing
// configured, the error names the models the server listed.
func TestSetupMissingModelNamesTheListed(t *testing.T) {
	srv := keyServer(t, setupKey)
	h := newHome(t)
	r := h.run([]string{"setup", "--yes", "--provider", "openrouter", "--base-url", srv.URL() + "/v1", "--api-key-env", "K"}, "K="+setupKey)
	if r.code != 1 || !strings.Contains(r.stderr, "--model: missing") || !strings.Contains(r.stderr, "m-one, m-two") {
		t.Fatalf("exit %d, stderr %q: want the model list in a --model error", r.code, r.stderr)
	}
	if h.read("config.yaml") != "" || h.read(".env") != "" {
		t.Errorf("setup wrote files after failing")
	}
}

// TestSetupBadKeyWritesNothing: a key the provider refuses is an error
// that says what to fix, holds no key, and leaves both files as they were.
func TestSetupBadKeyWritesNothing(t *testing.T) {
	srv := keyServer(t, setupKey)
	srv.AllowViolations()
	const wrong = "sk-wrong-key-0000000000000000000000"
	h := newHome(t)
	h.write("config.yaml", "model:\n  provider: ollama\n  default: qwen3:8b\n")
	h.write(".env", "A=1\n")
	for _, args := range [][]string{
		{"--api-key-env", "K"},
		{"--api-key", wrong},
	} {
		r := h.run(append([]string{"setup", "--yes", "--provider", "openai", "--base-url", srv.URL() + "/v1", "--model", "m-one"}, args...), "K="+wrong)
		if r.code != 1 || !strings.Contains(r.stderr, "refused the key") || !strings.Contains(r.stderr, "nothing was written") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		noKeyIn(t, "stderr", r.stderr, wrong)
		noKeyIn(t, "stdout", r.stdout, wrong)
	}
	if h.read("config.yaml") != "model:\n  provider: ollama\n  default: qwen3:8b\n" || h.read(".env") != "A=1\n" {
		t.Errorf("a refused key changed the files:\n%s\n%s", h.read("config.yaml"), h.read(".env"))
	}
}

// TestSetupRefusesBadAnswers: each bad flag is an error naming the flag,
// what is accepted, never the secret, and nothing is written.
func TestSetupRefusesBadAnswers(t *testing.T) {
	base := []string{"setup", "--yes", "--skip-test", "--model", "m"}
	cases := []struct {
		name   string
		args   []string
		want   []string
		secret string
	}{
		{"unknown provider", []string{"--provider", "nope"}, []string{`--provider: "nope" is not accepted`, "openrouter"}, ""},
		{"approval mode", []string{"--provider", "ollama", "--approvals", "sometimes"}, []string{`--approvals: "sometimes" is not accepted; use one of manual, smart, off`}, ""},
		{"base URL scheme", []string{"--provider", "custom", "--base-url", "file:///etc/passwd"}, []string{"--base-url", "http:// or https://"}, ""},
		{"password in base URL", []string{"--provider", "custom", "--base-url", "http://me:hunter2secret@gpu:8000/v1"}, []string{"--base-url", "password"}, "hunter2secret"},
		{"custom without URL", []string{"--provider", "custom"}, []string{"--base-url: missing"}, ""},
		{"key with a line break", []string{"--provider", "openai", "--api-key", "sk-line\nHERMES_MODEL_BASE_URL=http://evil"}, []string{"--api-key", "line break"}, "sk-line"},
		{"key with an escape", []string{"--provider", "openai", "--api-key", "sk-esc\x1b]0;pwned\x07"}, []string{"--api-key", "control character"}, "sk-esc"},
		{"both key flags", []string{"--provider", "openai", "--api-key", "sk-a", "--api-key-env", "K"}, []string{"not both"}, ""},
		{"empty key variable", []string{"--provider", "openai", "--api-key-env", "UNSET_VAR"}, []string{"--api-key-env: the variable UNSET_VAR is not set"}, ""},
		{"no key at all", []string{"--provider", "anthropic"}, []string{"--api-key-env: missing", "ANTHROPIC_API_KEY"}, ""},
		{"telegram token", []string{"--provider", "ollama", "--telegram-token", "12345:short-secret-token"}, []string{"--telegram-token: not a Telegram bot token"}, "short-secret-token"},
		{"model with a space", []string{"--provider", "ollama", "--model", "a b"}, []string{`--model: "a b" is not accepted`}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			r := h.hermes(append(base, tc.args...)...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q lacks %q", r.stderr, w)
				}
			}
			if tc.secret != "" {
				noKeyIn(t, "stderr", r.stderr+r.stdout, tc.secret)
			}
			if h.read("config.yaml") != "" || h.read(".env") != "" {
				t.Errorf("setup wrote files after refusing an answer")
			}
		})
	}
}

// TestSetupCallsOnlyTheGivenBaseURL: a base URL from the shell's
// HERMES_MODEL_BASE_URL or the old config.yaml gets neither the key nor
// any call; the one given does.
func TestSetupCallsOnlyTheGivenBaseURL(t *testing.T) {
	srv := keyServer(t, setupKey)
	var calls atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "not here", http.StatusTeapot)
	}))
	defer other.Close()
	h := newHome(t)
	h.write("config.yaml", "model:\n  provider: openai\n  default: m-one\n  base_url: "+other.URL+"/v1\n")
	r := h.run([]string{"setup", "--yes", "--base-url", srv.URL() + "/v1", "--api-key-env", "K"},
		"K="+setupKey, "HERMES_MODEL_BASE_URL="+other.URL+"/v1", "OPENAI_BASE_URL="+other.URL+"/v1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the other server got %d calls", n)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the given server got %d calls, want 1", n)
	}
	if cfg := h.read("config.yaml"); strings.Contains(cfg, other.URL) || !strings.Contains(cfg, srv.URL()) {
		t.Errorf("config.yaml:\n%s", cfg)
	}
}

// TestSetupMakesEnvPrivate: a .env others can read is made 0600 even by a
// setup that writes no secret into it, and setup says so.
func TestSetupMakesEnvPrivate(t *testing.T) {
	h := newHome(t)
	h.write(".env", "A=1\n")
	path := filepath.Join(h.dir, ".env")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.hermes("setup", "--yes", "--skip-test", "--provider", "ollama", "--model", "qwen3:8b")
	if r.code != 0 || !strings.Contains(r.stdout, "it is now 0600") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || h.read(".env") != "A=1\n" {
		t.Errorf(".env mode %04o, content %q", fi.Mode().Perm(), h.read(".env"))
	}
}

// TestSetupSwitchesProviderCleanly: settings of the old provider that
// would misdirect the new one (its wire protocol, its key variable, its
// base URL) are cleared, and a server with no usual key variable gets one
// of its own that model.api_key_env names.
func TestSetupSwitchesProviderCleanly(t *testing.T) {
	srv := keyServer(t, setupKey)
	h := newHome(t)
	h.write("config.yaml", "model:\n  provider: anthropic\n  default: claude-x\n  api_mode: anthropic_messages\n  api_key_env: OLD_KEY\n  base_url: http://old.example/v1\n")
	r := h.run([]string{"setup", "--yes", "--provider", "custom", "--base-url", srv.URL() + "/v1", "--api-key-env", "K", "--model", "m-one"}, "K="+setupKey)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	cfg := h.read("config.yaml")
	for _, gone := range []string{"anthropic_messages", "OLD_KEY", "old.example"} {
		if strings.Contains(cfg, gone) {
			t.Errorf("config.yaml still holds %q:\n%s", gone, cfg)
		}
	}
	if !strings.Contains(cfg, "api_key_env: CUSTOM_API_KEY") || !strings.Contains(h.read(".env"), "CUSTOM_API_KEY="+setupKey) {
		t.Errorf("the key's variable is not set up:\n%s\n%s", cfg, h.read(".env"))
	}
	if r := h.hermes("model", "call", "hi"); r.code != 0 || !strings.Contains(r.stdout, "OK") {
		t.Errorf("model call after setup: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestSetupEscapesWhatTheServerSays: model names and error text from the
// server reach the terminal escaped, so they cannot move the cursor,
// retitle the window or hide text.
func TestSetupEscapesWhatTheServerSays(t *testing.T) {
	srv := llmtest.New(t)
	srv.AllowViolations()
	srv.SetModels("fine-model", "evil\x1b]0;pwned\x07\x1b[2Jmodel")
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Status: 401, Error: &llmtest.ErrorReply{Message: "bad key\x1b[2J\x1b[1;1H"}}
	})
	h := newHome(t)
	for _, args := range [][]string{nil, {"--model", "fine-model"}} {
		r := h.run(append([]string{"setup", "--yes", "--provider", "openai", "--base-url", srv.URL() + "/v1", "--api-key-env", "K"}, args...), "K="+setupKey)
		if r.code != 1 || strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") {
			t.Errorf("%v: exit %d, output with raw control characters: %q %q", args, r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout+r.stderr, `\x1b`) {
			t.Errorf("%v: the server's text is not shown escaped: %q %q", args, r.stdout, r.stderr)
		}
	}
}
