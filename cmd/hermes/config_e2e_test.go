package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigCommands(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "# my settings\nmodel:\n  provider: openrouter # the router\n")

	if r := h.hermes("config", "path"); strings.TrimSpace(r.stdout) != filepath.Join(h.dir, "config.yaml") {
		t.Errorf("config path = %q", r.stdout)
	}
	if r := h.hermes("config", "set", "model.default", "anthropic/claude-sonnet-4.5"); r.code != 0 {
		t.Fatalf("config set: exit %d %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(filepath.Join(h.dir, "config.yaml"))
	if !strings.Contains(string(data), "# my settings") || !strings.Contains(string(data), "# the router") {
		t.Errorf("config set lost comments:\n%s", data)
	}
	if r := h.hermes("config", "get", "model.default"); strings.TrimSpace(r.stdout) != "anthropic/claude-sonnet-4.5" {
		t.Errorf("config get = %q", r.stdout)
	}

	// A bad value is refused with the key, the value and what is accepted,
	// and the file is left alone.
	r := h.hermes("config", "set", "model.api_mode", "chat")
	if r.code == 0 || !strings.Contains(r.stderr, "model.api_mode") || !strings.Contains(r.stderr, `"chat"`) || !strings.Contains(r.stderr, "chat_completions") {
		t.Errorf("bad set: exit %d, stderr %q", r.code, r.stderr)
	}
	after, _ := os.ReadFile(filepath.Join(h.dir, "config.yaml"))
	if string(after) != string(data) {
		t.Errorf("a refused set changed the file")
	}

	// check: no key yet, so the model is not usable, and it says which
	// variable to set.
	r = h.hermes("config", "check")
	if r.code != 1 || !strings.Contains(r.stdout, "OPENROUTER_API_KEY") {
		t.Errorf("check without key: exit %d, %q", r.code, r.stdout)
	}
	h.write(".env", "OPENROUTER_API_KEY=sk-or-v1-abcdefghijklmnop\n")
	r = h.hermes("config", "check")
	if r.code != 0 || !strings.Contains(r.stdout, "provider=openrouter") {
		t.Errorf("check with key: exit %d, %q", r.code, r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, "abcdefghijklmnop") {
		t.Errorf("check printed the secret: %s", r.stdout)
	}
	if r := h.hermes("config", "show"); strings.Contains(r.stdout, "abcdefghijklmnop") || !strings.Contains(r.stdout, "claude-sonnet-4.5") {
		t.Errorf("show: %q", r.stdout)
	}
}

func TestConfigErrorsNameFileLineKey(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "model:\n  provider: openai\n  api_mode: chat\nagent:\n  api_max_retries: three\nmodle: x\n")
	r := h.hermes("config", "check")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1", r.code)
	}
	out := r.stdout + r.stderr
	for _, want := range []string{
		`config.yaml:3: model.api_mode: "chat" is not accepted`, "chat_completions, responses, anthropic_messages",
		`config.yaml:5: agent.api_max_retries: "three"`,
		`config.yaml:6: unknown key "modle"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A configuration's warnings are listed by config check, and told in one
// line by any other command, which then prints what it is for; Hermes
// Agent's own settings are no warning anywhere, and config check names
// the ones hermes does not honour.
func TestConfigWarningsOneLineElsewhere(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "modle: x\ntimezon: UTC\ndisplay: {skin: mono}\nstreaming: {enabled: true}\n")
	r := h.hermes("skills", "list")
	if n := strings.Count(r.stderr, "warning:"); n != 1 || !strings.Contains(r.stderr, "the configuration has 2 problems: hermes config check") {
		t.Errorf("skills list told %d warning lines:\n%s", n, r.stderr)
	}
	if r.code != 0 || !strings.Contains(r.stdout, "SKILL") {
		t.Errorf("skills list: exit %d\n%s", r.code, r.stdout)
	}
	r = h.hermes("config", "check")
	out := r.stdout + r.stderr
	for _, want := range []string{`unknown key "modle"`, `unknown key "timezon"`, "display.skin: the look of Hermes's terminal UI", "streaming.enabled: hermes streams"} {
		if !strings.Contains(out, want) {
			t.Errorf("config check lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `unknown key "display`) || strings.Contains(out, `unknown key "streaming`) {
		t.Errorf("a Hermes setting was warned about:\n%s", out)
	}
}
