package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// A Hermes Agent home works as it is: its config.yaml with every default
// (config/testdata/hermes), its model set the way Hermes sets it, loads
// without a warning, and a one-shot chat runs on it with Hermes's
// settings hermes honours applied: agent.reasoning_effort reaches the
// model, toolsets [hermes-cli] offers the tools, and MEMORY.md turned off
// by memory.memory_enabled stays out of the prompt while USER.md is in.
func TestHermesHomeWorksAsItIs(t *testing.T) {
	defaults, err := os.ReadFile("../../config/testdata/hermes/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Hello from hermes."})
	h := newHome(t)
	cfg := strings.Replace(string(defaults), "model: ''\n",
		"model:\n  default: test-model\n  provider: custom\n  base_url: \""+srv.URL()+"/v1\"\n  api_key: sk-test-123456\n  api_mode: chat_completions\n", 1)
	cfg = strings.Replace(cfg, "  memory_enabled: true\n", "  memory_enabled: false\n", 1)
	cfg = strings.Replace(cfg, "agent:\n", "agent:\n  reasoning_effort: high\n", 1)
	h.write("config.yaml", cfg)
	if err := os.MkdirAll(filepath.Join(h.dir, "memories"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("memories/MEMORY.md", "The deploy key lives in vault path ops/deploy.")
	h.write("memories/USER.md", "The user is called Mei.")
	// Hermes's own state.db, which hermes must leave as it is.
	ddl, err := os.ReadFile("../../config/testdata/hermes/state_v22.sql")
	if err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(h.dir, "state.db")
	conn, err := sql.Open("sqlite", theirs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(string(ddl) + `;PRAGMA journal_mode=WAL;
INSERT INTO sessions (id, source, started_at) VALUES ('20260101_000000_abcdef', 'cli', 1767225600.0)`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	before, err := os.ReadFile(theirs)
	if err != nil {
		t.Fatal(err)
	}

	r := h.hermes("chat", "-q", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "Hello from hermes.") {
		t.Fatalf("chat -q: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("a Hermes home gave warnings:\n%s", r.stderr)
	}
	if after, _ := os.ReadFile(theirs); !bytes.Equal(before, after) {
		t.Error("hermes changed Hermes Agent's state.db")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "hermes-state.db")); err != nil {
		t.Errorf("hermes's own state is not beside Hermes's: %v", err)
	}
	if r := h.hermes("sessions", "list"); !strings.Contains(r.stdout, "hi") && !strings.Contains(r.stdout, "cli") {
		t.Errorf("sessions list does not show the chat:\n%s%s", r.stdout, r.stderr)
	}
	req := srv.Requests()[0]
	if !strings.Contains(string(req.Body), `"reasoning_effort":"high"`) {
		t.Errorf("agent.reasoning_effort did not reach the model: %.300s", req.Body)
	}
	if !strings.Contains(string(req.Body), `"terminal"`) {
		t.Errorf("toolsets [hermes-cli] offered no terminal tool")
	}
	system := req.Messages[0].Text()
	if strings.Contains(system, "vault path ops/deploy") || !strings.Contains(system, "called Mei") {
		t.Errorf("MEMORY.md is turned off and USER.md on; the system prompt:\n%s", system)
	}
	r = h.hermes("config", "check")
	if !strings.Contains(r.stdout, "(ok, 0 warnings)") || strings.Contains(r.stdout, "not honoured") {
		t.Errorf("config check of a Hermes home:\n%s%s", r.stdout, r.stderr)
	}
}
