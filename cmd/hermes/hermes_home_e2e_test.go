package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// A Hermes Agent home works as it is: its config.yaml with every default
// (config/testdata/hermes), its model set the way Hermes sets it, loads
// without a warning, and a one-shot chat runs on it with Hermes's
// settings hermes honours applied: agent.reasoning_effort reaches the
// model, toolsets [hermes-cli] offers the tools, and MEMORY.md turned off
// by memory.memory_enabled stays out of the prompt while USER.md is in.
func TestHermesHomeWorksAsItIs(t *testing.T) {
	defaults, err := os.ReadFile("../../internal/config/testdata/hermes/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("pwd")}}, llmtest.Reply{Text: "Hello from hermes."})
	h := newHome(t)
	workdir := t.TempDir()
	cfg := strings.Replace(string(defaults), "model: ''\n",
		"model:\n  default: test-model\n  provider: custom\n  base_url: \""+srv.URL()+"/v1\"\n  api_key: sk-test-123456\n  api_mode: chat_completions\n", 1)
	cfg = strings.Replace(cfg, "  memory_enabled: true\n", "  memory_enabled: false\n", 1)
	cfg = strings.Replace(cfg, "agent:\n", "agent:\n  reasoning_effort: high\n", 1)
	cfg = strings.Replace(cfg, "  cwd: .\n", "  cwd: "+workdir+"\n", 1)
	h.write("config.yaml", cfg)
	if err := os.MkdirAll(filepath.Join(h.dir, "memories"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.write("memories/MEMORY.md", "The deploy key lives in vault path ops/deploy.")
	h.write("memories/USER.md", "The user is called Mei.")
	// Hermes's own state.db, which hermes must leave as it is.
	theirs := hermesStateDB(t, h.dir, `PRAGMA journal_mode=WAL;
INSERT INTO sessions (id, source, started_at) VALUES ('20260101_000000_abcdef', 'cli', 1767225600.0)`)
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
	if got := srv.Requests()[1].Messages; !strings.Contains(got[len(got)-1].Text(), workdir) {
		t.Errorf("terminal.cwd %s is not where commands ran: %s", workdir, got[len(got)-1].Text())
	}
	r = h.hermes("config", "check")
	if !strings.Contains(r.stdout, "(ok, 0 warnings)") || strings.Contains(r.stdout, "not honoured") {
		t.Errorf("config check of a Hermes home:\n%s%s", r.stdout, r.stderr)
	}
}

// hermes migrate hermes-agent brings the sessions of Hermes's state.db in
// the same home into hermes's own: --dry-run writes nothing, the import
// makes them searchable (CJK included) with their tool calls, a second
// run imports nothing, and Hermes's file is left as it was.
func TestMigrateHermesAgentSessions(t *testing.T) {
	h := newHome(t)
	theirs := hermesStateDB(t, h.dir, `INSERT INTO sessions (id, source, model, started_at, title) VALUES ('20260718_091500_a1b2c3', 'telegram', 'anthropic/claude-sonnet-4', 1752850000.5, '部署检查');
INSERT INTO messages (session_id, role, content, timestamp, active) VALUES ('20260718_091500_a1b2c3', 'user', '部署脚本放在哪个目录？', 1752850001.0, 1);
INSERT INTO messages (session_id, role, content, tool_calls, timestamp, finish_reason, active) VALUES ('20260718_091500_a1b2c3', 'assistant', '',
  '[{"id": "call_1", "call_id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"ls /srv\"}"}}]', 1752850002.0, 'tool_calls', 1);
INSERT INTO messages (session_id, role, content, tool_call_id, tool_name, timestamp, active) VALUES ('20260718_091500_a1b2c3', 'tool', 'deploy.sh', 'call_1', 'terminal', 1752850003.0, 1);
INSERT INTO messages (session_id, role, content, timestamp, active) VALUES ('20260718_091500_a1b2c3', 'assistant', '在 /srv/deploy.sh。', 1752850004.0, 1);`)
	before, _ := os.ReadFile(theirs)

	r := h.hermes("migrate", "hermes-agent", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "sessions: would import 1 (4 messages)") {
		t.Fatalf("dry run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := h.hermes("sessions", "search", "部署脚本"); strings.Contains(r.stdout, "20260718_091500_a1b2c3") {
		t.Fatalf("the dry run imported:\n%s", r.stdout)
	}
	r = h.hermes("migrate", "hermes-agent")
	if r.code != 0 || !strings.Contains(r.stdout, "sessions: imported 1 (4 messages)") {
		t.Fatalf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := h.hermes("sessions", "search", "部署脚本"); !strings.Contains(r.stdout, "20260718_091500_a1b2c3") {
		t.Errorf("search does not find the migrated CJK text:\n%s%s", r.stdout, r.stderr)
	}
	if r := h.hermes("sessions", "show", "20260718_091500_a1b2c3"); !strings.Contains(r.stdout, "ls /srv") || !strings.Contains(r.stdout, "/srv/deploy.sh") {
		t.Errorf("the migrated session lacks its tool call or answer:\n%s%s", r.stdout, r.stderr)
	}
	r = h.hermes("migrate", "hermes-agent")
	if r.code != 0 || !strings.Contains(r.stdout, "sessions: imported 0 (0 messages), skipped 1 already here") {
		t.Errorf("second run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if after, _ := os.ReadFile(theirs); !bytes.Equal(before, after) {
		t.Error("migrate changed Hermes Agent's state.db")
	}
}

// hermes migrate hermes-agent --from a Hermes home in another directory
// brings its jobs, its paired users and its persona, memories and skills
// into the hermes home, and says what it could not keep.
func TestMigrateHermesAgentFromAnotherHome(t *testing.T) {
	h := newHome(t)
	from := t.TempDir()
	for rel, text := range map[string]string{
		"SOUL.md":                                  "You are a careful ops assistant.",
		"memories/MEMORY.md":                       "The staging box is stage-01.",
		"skills/devops/deploy/SKILL.md":            "---\nname: deploy\ndescription: Deploy the app to staging.\n---\nRun make deploy.\n",
		"platforms/pairing/telegram-approved.json": `{"4242": {"user_name": "Mei", "approved_at": 1752850000.5}}`,
		"cron/jobs.json": `{"jobs": [{"id": "3f9c2a7b1d4e", "name": "Morning brief", "prompt": "Summarize the alerts of the night",
  "skills": [], "schedule": {"kind": "cron", "expr": "0 8 * * *", "display": "0 8 * * *"}, "repeat": {"times": null, "completed": 0},
  "enabled": true, "state": "scheduled", "deliver": "discord:777"}], "updated_at": "2026-07-18T08:13:00-07:00"}`,
	} {
		p := filepath.Join(from, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := h.hermes("migrate", "hermes-agent", "--from", from)
	if r.code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"jobs: imported 1", `delivery "discord:777" is kept in the local output`, "paired users: imported 1", "files: imported 3", "SOUL.md"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := h.hermes("cron", "list"); !strings.Contains(r.stdout, "morning-brief-3f9c2a") || !strings.Contains(r.stdout, "0 8 * * *") {
		t.Errorf("cron list:\n%s%s", r.stdout, r.stderr)
	}
	if r := h.hermes("pairing", "list"); !strings.Contains(r.stdout, "4242") {
		t.Errorf("pairing list:\n%s%s", r.stdout, r.stderr)
	}
	if r := h.hermes("skills", "list"); !strings.Contains(r.stdout, "deploy") {
		t.Errorf("skills list:\n%s%s", r.stdout, r.stderr)
	}
	r = h.hermes("migrate", "hermes-agent", "--from", from)
	if !strings.Contains(r.stdout, "jobs: imported 0, skipped 1") || !strings.Contains(r.stdout, "files: imported 0, kept 3") {
		t.Errorf("second run:\n%s%s", r.stdout, r.stderr)
	}
}

// hermesStateDB makes dir/state.db as Hermes Agent makes it (its DDL at
// schema version 22), runs then on it, and returns its path.
func hermesStateDB(t *testing.T, dir, then string) string {
	t.Helper()
	ddl, err := os.ReadFile("../../internal/config/testdata/hermes/state_v22.sql")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state.db")
	conn, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec(string(ddl) + ";\n" + then); err != nil {
		t.Fatal(err)
	}
	return path
}
