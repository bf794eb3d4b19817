package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// TestUsersCommands: hermes users add writes a user into config.yaml
// (an API key printed once, only its hash stored), refuses a user of a
// tenant that does not exist without touching the file, lists and
// removes them.
func TestUsersCommands(t *testing.T) {
	h := newHome(t)
	h.write("config.yaml", "# the team\ntenants:\n  acme: {}\n")
	r := h.hermes("users", "add", "ana", "--tenant", "acme", "--role", "admin", "--identity", "telegram=42", "--api-key")
	if r.code != 0 || !strings.Contains(r.stdout, "API key (shown once") {
		t.Fatalf("users add: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	key := strings.TrimSpace(r.stdout[strings.LastIndex(r.stdout, ": ")+2:])
	cfg, _ := os.ReadFile(filepath.Join(h.dir, "config.yaml"))
	if !strings.HasPrefix(key, "sk-hermes-ana-") || strings.Contains(string(cfg), key) || !strings.Contains(string(cfg), "api_key_sha256") || !strings.Contains(string(cfg), "# the team") {
		t.Errorf("key %q; config.yaml:\n%s", key, cfg)
	}
	r = h.hermes("users", "add", "bob", "--tenant", "nope")
	after, _ := os.ReadFile(filepath.Join(h.dir, "config.yaml"))
	if r.code == 0 || !strings.Contains(r.stderr, `users.bob.tenant: "nope" is not accepted`) || string(after) != string(cfg) {
		t.Errorf("a user of an unknown tenant: exit %d %s\nconfig.yaml:\n%s", r.code, r.stderr, after)
	}
	r = h.hermes("users", "list", "--json")
	var rows []struct {
		ID, Tenant, Role string
		APIKey           bool `json:"api_key"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil || len(rows) != 1 || rows[0].ID != "ana" || rows[0].Role != "admin" || !rows[0].APIKey {
		t.Errorf("users list: %s %s", r.stdout, r.stderr)
	}
	if r = h.hermes("users", "set", "ana", "--role", "viewer"); r.code != 0 {
		t.Fatalf("users set: %s", r.stderr)
	}
	if r = h.hermes("users", "list"); !strings.Contains(r.stdout, "viewer") || !strings.Contains(r.stdout, "telegram:42") {
		t.Errorf("after users set: %s", r.stdout)
	}
	if r = h.hermes("users", "remove", "ana"); r.code != 0 {
		t.Fatalf("users remove: %s", r.stderr)
	}
	if r = h.hermes("users", "list"); !strings.Contains(r.stdout, "no users") {
		t.Errorf("after remove: %s", r.stdout)
	}
}

// TestAuditLog: every tool call of a turn is in the audit log with its
// arguments redacted and how its command was decided: a safe one, and a
// dangerous one denied with nobody to ask, with the reason.
func TestAuditLog(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	token := "ghp_" + strings.Repeat("a1B2", 9)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo " + token)}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("rm -rf " + filepath.Join(h.dir, "nothing"))}},
		llmtest.Reply{Text: "done"},
	)
	if _, r := h.chatIn(srv, h.dir, "tidy up"); r.code != 0 {
		t.Fatalf("chat: %s", r.stderr)
	}
	r := h.hermes("audit", "--json")
	var list []struct {
		Tool, Args, Status, Approval, Reason, SessionID string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 2 {
		t.Fatalf("audit: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	denied, safe := list[0], list[1] // newest first
	if safe.Tool != "terminal" || safe.Approval != "safe" || safe.Status != "ok" || strings.Contains(safe.Args, token) || !strings.Contains(safe.Args, "echo") {
		t.Errorf("the safe call: %+v", safe)
	}
	if denied.Approval != "denied" || !strings.Contains(denied.Reason, "nobody can be asked") || !strings.Contains(denied.Args, "rm -rf") {
		t.Errorf("the denied call: %+v", denied)
	}
	if r := h.hermes("audit", "--approval", "denied"); r.code != 0 || !strings.Contains(r.stdout, "denied: ") || strings.Contains(r.stdout, "echo") {
		t.Errorf("audit --approval denied: %s %s", r.stdout, r.stderr)
	}
	if r := h.hermes("audit", "--approval", "maybe"); r.code == 0 || !strings.Contains(r.stderr, "use one of safe") {
		t.Errorf("a bad --approval: %d %s", r.code, r.stderr)
	}
	if r := h.hermes("audit", "prune", "--keep-days", "1"); r.code != 0 || !strings.Contains(r.stdout, "0 entries older than 1 days deleted") {
		t.Errorf("audit prune: %d %s %s", r.code, r.stdout, r.stderr)
	}
}
