package hermesagent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/gwstore"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// write puts text at home/rel.
func write(t *testing.T, home, rel, text string, perm os.FileMode) {
	t.Helper()
	p := filepath.Join(home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
}

// The users approved in Hermes's pairing files, in its new directory and
// its old one, become paired users of the gateway, with their approval
// time; pending codes do not; a second import grants nothing new.
func TestImportPairings(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	write(t, home, "platforms/pairing/telegram-approved.json", `{"111": {"user_name": "Alice", "approved_at": 1752850000.5}}`, 0o600)
	write(t, home, "platforms/pairing/telegram-pending.json", `{"e1": {"hash": "x", "salt": "y", "user_id": "333", "user_name": "Mallory", "created_at": 1752850000}}`, 0o600)
	write(t, home, "pairing/discord-approved.json", `{"222": {"user_name": "Bob", "approved_at": 1752850100}}`, 0o600)
	db, err := sqlitedb.Open(ctx, filepath.Join(t.TempDir(), "hermes-state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gw := gwstore.New(db, gwstore.Options{})
	rep, err := ImportPairings(ctx, gw, home, false)
	if err != nil || rep.Imported != 2 {
		t.Fatalf("import: %+v, %v", rep, err)
	}
	for _, c := range []struct {
		platform, user string
		want           bool
	}{{"telegram", "111", true}, {"discord", "222", true}, {"telegram", "333", false}, {"discord", "111", false}} {
		if ok, err := gw.Paired(ctx, c.platform, c.user); err != nil || ok != c.want {
			t.Errorf("%s %s paired %v, %v; want %v", c.platform, c.user, ok, err, c.want)
		}
	}
	ps, err := gw.ListPairings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps.Approved {
		if p.User == "111" && !p.Approved.Equal(time.Unix(1752850000, 500_000_000).UTC()) {
			t.Errorf("approval time %v", p.Approved)
		}
	}
	if again, err := ImportPairings(ctx, gw, home, false); err != nil || again.Imported != 0 || again.Present != 2 {
		t.Errorf("second import: %+v, %v", again, err)
	}
}

// The persona, memories, skills and .env of a Hermes home in another
// directory are copied where hermes reads them, .env kept private; what
// the hermes home has already is kept; a link is not followed; the same
// directory is left alone.
func TestImportFiles(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	write(t, from, "SOUL.md", "You are Hermes.", 0o644)
	write(t, from, "memories/MEMORY.md", "deploys on Friday", 0o600)
	write(t, from, "memories/USER.md", "call me Mei", 0o600)
	write(t, from, ".env", "OPENROUTER_API_KEY=sk-or-1", 0o600)
	write(t, from, "skills/devops/deploy/SKILL.md", "---\nname: deploy\n---\n", 0o644)
	write(t, from, "skills/devops/deploy/scripts/run.sh", "echo deploy", 0o755)
	write(t, to, "memories/USER.md", "the hermes home's own", 0o600)
	secret := filepath.Join(t.TempDir(), "secret")
	write(t, filepath.Dir(secret), "secret", "not to be copied", 0o600)
	if err := os.Symlink(secret, filepath.Join(from, "skills", "devops", "deploy", "leak.md")); err != nil {
		t.Fatal(err)
	}
	rep, err := ImportFiles(from, to, false)
	if err != nil {
		t.Fatal(err)
	}
	wantCopied := []string{"SOUL.md", "memories/MEMORY.md", ".env", "skills/devops/deploy/SKILL.md", "skills/devops/deploy/scripts/run.sh"}
	if !slices.Equal(rep.Copied, wantCopied) || !slices.Equal(rep.Kept, []string{"memories/USER.md"}) {
		t.Errorf("copied %q, kept %q", rep.Copied, rep.Kept)
	}
	if b, _ := os.ReadFile(filepath.Join(to, "memories/USER.md")); string(b) != "the hermes home's own" {
		t.Errorf("USER.md was overwritten: %q", b)
	}
	if info, err := os.Stat(filepath.Join(to, ".env")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf(".env: %v, %v", info, err)
	}
	if info, err := os.Stat(filepath.Join(to, "skills/devops/deploy/scripts/run.sh")); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("the skill's script lost its mode: %v, %v", info, err)
	}
	if _, err := os.Lstat(filepath.Join(to, "skills/devops/deploy/leak.md")); err == nil {
		t.Error("a link in the Hermes home was followed")
	}
	if again, err := ImportFiles(from, to, false); err != nil || len(again.Copied) != 0 {
		t.Errorf("second import: %+v, %v", again, err)
	}
	if same, err := ImportFiles(from, from, false); err != nil || len(same.Copied)+len(same.Kept) != 0 {
		t.Errorf("same directory: %+v, %v", same, err)
	}
}
