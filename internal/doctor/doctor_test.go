package doctor

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunReportsAHungCheckAndRedacts(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	checks := []Check{
		{Name: "fine", Run: func(context.Context) []Result { return []Result{Okf("fine", "key sk-secret-1234")} }},
		{Name: "hung", Timeout: 20 * time.Millisecond, Run: func(context.Context) []Result { <-release; return nil }},
		{Name: "warns", Run: func(context.Context) []Result { return []Result{Problem("warns", Warn, "do x", "meh")} }},
	}
	rep := Run(context.Background(), checks, func(s string) string { return strings.ReplaceAll(s, "sk-secret-1234", "[REDACTED]") })
	if rep.Status != Fail || len(rep.Checks) != 3 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Checks[0].Finding != "key [REDACTED]" {
		t.Errorf("finding not redacted: %q", rep.Checks[0].Finding)
	}
	if rep.Checks[1].Status != Fail || !strings.Contains(rep.Checks[1].Finding, "no answer within") {
		t.Errorf("hung check: %+v", rep.Checks[1])
	}
}

func TestWarnAloneIsNotAFailure(t *testing.T) {
	rep := Run(context.Background(), []Check{{Name: "w", Run: func(context.Context) []Result {
		return []Result{Problem("w", Warn, "fix", "meh")}
	}}}, nil)
	if rep.Failed() || rep.Status != Warn {
		t.Fatalf("status %s", rep.Status)
	}
}

func result(t *testing.T, c Check, name string) Result {
	t.Helper()
	for _, r := range Run(context.Background(), []Check{c}, nil).Checks {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no result %q", name)
	return Result{}
}

func TestEnvReadableByOthersFails(t *testing.T) {
	home := t.TempDir()
	env := filepath.Join(home, ".env")
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		if err := os.WriteFile(env, []byte("K=v\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(env, mode)
		r := result(t, Permissions(home, env), "permissions: .env")
		if r.Status != Fail || r.Fix != "chmod 600 "+env {
			t.Errorf("mode %04o: %+v", mode, r)
		}
	}
	os.Chmod(env, 0o600)
	if r := result(t, Permissions(home, env), "permissions: .env"); r.Status != OK {
		t.Errorf("0600: %+v", r)
	}
}

func TestEnvLinkOutOfHomeIsNotFollowed(t *testing.T) {
	home, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "shared.env")
	os.WriteFile(target, []byte("K=v\n"), 0o644)
	env := filepath.Join(home, ".env")
	if err := os.Symlink(target, env); err != nil {
		t.Fatal(err)
	}
	r := result(t, Permissions(home, env), "permissions: .env")
	if r.Status != Warn || strings.Contains(r.Fix, target) || strings.Contains(r.Finding, "0644") {
		t.Errorf("link out of home: %+v", r)
	}
	// A link that stays inside home is judged by its target.
	os.Remove(env)
	inner := filepath.Join(home, "secrets.env")
	os.WriteFile(inner, []byte("K=v\n"), 0o644)
	os.Chmod(inner, 0o644)
	os.Symlink(inner, env)
	r = result(t, Permissions(home, env), "permissions: .env")
	if r.Status != Fail || r.Fix != "chmod 600 "+inner {
		t.Errorf("link inside home: %+v", r)
	}
}

func TestHomeOpenToOthersWarns(t *testing.T) {
	home := t.TempDir()
	os.Chmod(home, 0o755)
	if r := result(t, Permissions(home, filepath.Join(home, ".env")), "permissions: home"); r.Status != Warn || r.Fix != "chmod 700 "+home {
		t.Errorf("%+v", r)
	}
}

func TestStateDB(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	if r := result(t, StateDB(path), "state.db"); r.Status != OK {
		t.Errorf("missing: %+v", r)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('a')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if r := result(t, StateDB(path), "state.db"); r.Status != OK || !strings.Contains(r.Finding, "integrity ok") {
		t.Errorf("healthy: %+v", r)
	}
	// Damage every page after the header.
	data, _ := os.ReadFile(path)
	for i := 100; i < len(data); i++ {
		data[i] = 0xA5
	}
	os.WriteFile(path, data, 0o600)
	r := result(t, StateDB(path), "state.db")
	if r.Status != Fail || !strings.Contains(r.Fix, "mv ") {
		t.Errorf("damaged: %+v", r)
	}
	os.WriteFile(path, []byte("this is not a database at all, not even close to one"), 0o600)
	if r := result(t, StateDB(path), "state.db"); r.Status != Fail {
		t.Errorf("not a database: %+v", r)
	}
}

func TestDiskSpace(t *testing.T) {
	r := result(t, DiskSpace(filepath.Join(t.TempDir(), "not", "yet")), "disk")
	if r.Status == Fail || !strings.Contains(r.Finding, "free under") {
		t.Errorf("%+v", r)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"/a/b.env": "/a/b.env", "/a b/x": "'/a b/x'", "/a'$(x)": `'/a'\''$(x)'`} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// A finding quotes what servers and files said: in the text report it can
// neither start a line of its own nor send the terminal a command.
func TestTextReportEscapesWhatItQuotes(t *testing.T) {
	rep := Run(context.Background(), []Check{{Name: "mcp", Run: func(context.Context) []Result {
		return []Result{Problem("mcp", Fail, "fix\nok    forged", "server said \x1b[2J\x1b]0;pwned\a\rok    config  fine\u2028ok too\x9b31m \u009b32m")}
	}}}, nil)
	var b strings.Builder
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\a\r\u2028\u009b") || strings.Contains(out, "\x9b") {
		t.Errorf("control characters reach the terminal: %q", out)
	}
	if lines := strings.Count(out, "\n"); lines != 4 {
		t.Errorf("%d lines, want 4 (finding, fix, blank, count):\n%s", lines, out)
	}
	if !strings.Contains(out, `\x1b[2J`) {
		t.Errorf("the escape is not shown escaped: %q", out)
	}
	var j strings.Builder
	if err := WriteJSON(&j, rep); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(j.String(), "\u009b\x1b") {
		t.Errorf("control characters in the JSON report: %q", j.String())
	}
}
