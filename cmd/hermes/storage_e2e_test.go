package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/pgtest"
)

// TestStorageMigrateAndCheck chats a turn with a tool call, copies the
// home's state.db into PostgreSQL, and checks the copy against it, then
// the PostgreSQL storage alone once config.yaml names it. The DSN's
// password is never printed.
func TestStorageMigrateAndCheck(t *testing.T) {
	h := newHome(t)
	srv := llmtest.New(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{terminalCall("echo 你好")}},
		llmtest.Reply{Text: "服务器一切正常 — all good."},
	)
	if _, r := h.chatIn(srv, t.TempDir(), "检查一下服务器"); r.code != 0 {
		t.Fatalf("chat: exit %d\n%s", r.code, r.stderr)
	}
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "pw-never-shown") // the test server trusts local users
	dsn := u.String()
	noSecret := func(what string, r result) {
		t.Helper()
		if strings.Contains(r.stdout+r.stderr, "pw-never-shown") {
			t.Errorf("%s printed the DSN's password:\n%s%s", what, r.stdout, r.stderr)
		}
	}

	// A turn writes the audit log; while the audit store has no
	// PostgreSQL schema, migrate refuses to leave it behind unless told.
	r := h.hermes("storage", "migrate", "--to", dsn)
	if r.code != 0 && !strings.Contains(r.stderr, "tables audit_log (1 rows) hold rows but PostgreSQL has no table") {
		t.Fatalf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.hermes("storage", "migrate", "--to", dsn, "--skip", "audit_log")
	noSecret("migrate", r)
	if r.code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"sessions", "messages", "xxxxx", "hold the same rows"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("migrate's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "DIFFERS") {
		t.Errorf("migrate found differences:\n%s", r.stdout)
	}
	t.Logf("hermes storage migrate:\n%s", r.stdout)

	r = h.hermes("storage", "check", "--against", dsn, "--skip", "audit_log")
	noSecret("check --against", r)
	if r.code != 0 || !strings.Contains(r.stdout, "messages") {
		t.Fatalf("check --against: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.hermes("storage", "migrate", "--to", dsn, "--skip", "audit_log")
	if r.code != 0 {
		t.Fatalf("migrate run again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = h.hermes("storage", "check"); r.code != 0 || !strings.Contains(r.stdout, "no problems found") {
		t.Fatalf("check of state.db: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	h.write("config.yaml", "storage:\n  driver: postgres\n  dsn: "+dsn+"\n")
	r = h.hermes("storage", "check")
	noSecret("check of postgres", r)
	if r.code != 0 || !strings.Contains(r.stdout, "no problems found") || !strings.Contains(r.stdout, "checking postgres://") {
		t.Fatalf("check of postgres: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestStorageMigrateBadFlags names the flag, the value and what is
// accepted.
func TestStorageMigrateBadFlags(t *testing.T) {
	h := newHome(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"storage", "migrate"}, "--to: give the PostgreSQL database"},
		{[]string{"storage", "migrate", "--to", "mysql://root:hunter2@db/x"}, "--to mysql://root:xxxxx@db/x: not a PostgreSQL database"},
		{[]string{"storage", "migrate", "--to", "postgres://db/x", "--batch", "0"}, "--batch 0: give 1 to 100000"},
		{[]string{"storage", "check", "--against", ""}, "--against: give the PostgreSQL database"},
		{[]string{"storage", "migrate", "--to", "postgres://db/x"}, "state.db does not exist"},
	} {
		r := h.hermes(c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "hunter2") {
			t.Errorf("hermes %v: exit %d, stderr %q; want it to say %q", c.args, r.code, r.stderr, c.want)
		}
	}
}
