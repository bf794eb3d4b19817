//go:build unix

package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/writeguard"
)

// attachWorld is a home with a key, a hermes home inside it holding a
// session's folder, and a working directory: the places an attachment
// may come from and the ones it must not.
type attachWorld struct {
	home, hermes, folder, other, workdir string
	out                                  outbound
}

func newAttachWorld(t *testing.T) attachWorld {
	t.Helper()
	home := t.TempDir()
	w := attachWorld{home: home, hermes: filepath.Join(home, ".hermes"), workdir: filepath.Join(home, "work")}
	w.folder = filepath.Join(w.hermes, "sessions", "s1", "files")
	w.other = filepath.Join(w.hermes, "sessions", "s2", "files")
	for _, d := range []string{filepath.Join(home, ".ssh"), w.folder, w.other, w.workdir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	put := func(path, body string) {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n")
	put(filepath.Join(w.hermes, ".env"), "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\n")
	put(filepath.Join(w.hermes, "config.yaml"), "model: gpt-4o\n")
	put(filepath.Join(w.folder, "photo.jpg"), "jpeg bytes")
	put(filepath.Join(w.other, "theirs.pdf"), "someone else's file")
	put(filepath.Join(w.workdir, "report.md"), "# Report\n")
	put(filepath.Join(w.workdir, ".env"), "DB_PASSWORD=hunter2hunter2\n")
	w.out = outbound{folders: []string{w.folder}, workdir: w.workdir, max: 1 << 20, tmp: t.TempDir(),
		guard: writeguard.Guard{Home: home, HermesHome: w.hermes, Pid: -1}}
	return w
}

// Files hermes made in the working directory, or received in the chat's
// folder, are attached by absolute, relative or ~ path, and through a
// link that stays inside.
func TestOutboundAllows(t *testing.T) {
	w := newAttachWorld(t)
	if err := os.Symlink(filepath.Join(w.workdir, "report.md"), filepath.Join(w.workdir, "latest.md")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		filepath.Join(w.workdir, "report.md"): filepath.Join(w.workdir, "report.md"),
		"report.md":                           filepath.Join(w.workdir, "report.md"),
		"./sub/../report.md":                  filepath.Join(w.workdir, "report.md"),
		"~/work/report.md":                    filepath.Join(w.workdir, "report.md"),
		"latest.md":                           filepath.Join(w.workdir, "report.md"),
		filepath.Join(w.folder, "photo.jpg"):  filepath.Join(w.folder, "photo.jpg"),
	} {
		got, err := w.out.check(name)
		if err != nil {
			t.Errorf("check(%q): %v", name, err)
			continue
		}
		sent, _ := os.ReadFile(got)
		orig, _ := os.ReadFile(want)
		if filepath.Base(got) != filepath.Base(want) || string(sent) != string(orig) || !strings.HasPrefix(got, w.out.tmp) {
			t.Errorf("check(%q) = %q holding %q; want a copy of %s", name, got, sent, want)
		}
	}
}

// What is sent is a copy of what was checked: a link put in place of the
// file afterwards, before the platform reads it, changes nothing.
func TestOutboundSendsWhatWasChecked(t *testing.T) {
	w := newAttachWorld(t)
	report := filepath.Join(w.workdir, "report.md")
	got, err := w.out.check(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(report); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(w.home, ".ssh", "id_rsa"), report); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(got); string(b) != "# Report\n" {
		t.Errorf("the file sent now holds %q", b)
	}
	if entries, _ := os.ReadDir(w.out.tmp); len(entries) != 1 {
		t.Errorf("%d copies in the folder; want one, and none of the refused files", len(entries))
	}
}

// The roads out: an absolute path to a key, ~ to it, .. out of the
// working directory, a link out of the folder, hermes's own secrets and
// configuration, another session's files, .env files, a hard link to a
// key, a FIFO, a directory, a device through a link, an empty file, a
// file over the limit, a copy of a key, and no file at all.
func TestOutboundRefuses(t *testing.T) {
	w := newAttachWorld(t)
	key := filepath.Join(w.home, ".ssh", "id_rsa")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(key, filepath.Join(w.folder, "innocent.jpg")))
	must(os.Symlink(filepath.Join(w.hermes, ".env"), filepath.Join(w.workdir, "settings.txt")))
	must(os.Symlink("/dev/zero", filepath.Join(w.workdir, "zeros.bin")))
	must(os.Link(filepath.Join(w.workdir, "report.md"), filepath.Join(w.workdir, "report-copy.md")))
	must(syscall.Mkfifo(filepath.Join(w.folder, "pipe.jpg"), 0o600))
	must(os.WriteFile(filepath.Join(w.workdir, "empty.txt"), nil, 0o600))
	must(os.WriteFile(filepath.Join(w.workdir, "huge.bin"), make([]byte, 2<<20), 0o600))
	keyCopy, _ := os.ReadFile(key)
	must(os.WriteFile(filepath.Join(w.workdir, "notes.txt"), append([]byte("my notes\n\n"), keyCopy...), 0o600))
	must(os.MkdirAll(filepath.Join(w.workdir, "dir"), 0o700))
	// The key under a second name inside the folder, where a path check
	// alone sees a file of the folder.
	linked := filepath.Join(w.folder, "key.txt")
	if err := os.Link(key, linked); err != nil {
		t.Skipf("no hard links here: %v", err)
	}

	tests := []struct{ path, why string }{
		{key, "outside"},
		{"~/.ssh/id_rsa", "outside"},
		{"../.ssh/id_rsa", "outside"},
		{filepath.Join(w.workdir, "..", ".ssh", "id_rsa"), "outside"},
		{filepath.Join(w.folder, "innocent.jpg"), "outside"},
		{filepath.Join(w.hermes, ".env"), ".env files hold secrets"},
		{filepath.Join(w.hermes, "config.yaml"), "outside"},
		{"settings.txt", ".env files hold secrets"},
		{filepath.Join(w.other, "theirs.pdf"), "outside"},
		{".env", ".env files hold secrets"},
		{linked, "2 names (hard links)"},
		{"report-copy.md", "2 names (hard links)"},
		{filepath.Join(w.folder, "pipe.jpg"), "not a regular file"},
		{"dir", "not a regular file"},
		{"zeros.bin", "outside"},
		{"empty.txt", "it is empty"},
		{"huge.bin", "it is 2 MB, over the limit of 1 MB"},
		{"notes.txt", "it holds a secret (private_key)"},
		{"missing.pdf", "it does not exist"},
		{"  ", "it names no file"},
	}
	for _, tt := range tests {
		got, err := w.out.check(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("check(%q) = %q, %v; want refused: %s", tt.path, got, err, tt.why)
		}
	}
}

// When the working directory is the hermes home (hermes serve started
// there), nothing of it goes out but the chat's own folder.
func TestOutboundWorkdirIsHermesHome(t *testing.T) {
	w := newAttachWorld(t)
	w.out.workdir = w.hermes
	if err := os.WriteFile(filepath.Join(w.hermes, "state.db"), []byte("SQLite format 3"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"config.yaml", "state.db", filepath.Join(w.other, "theirs.pdf")} {
		if _, err := w.out.check(p); err == nil || !strings.Contains(err.Error(), "hermes's own state") {
			t.Errorf("check(%q) = %v; want refused as hermes's own state", p, err)
		}
	}
	if _, err := w.out.check(filepath.Join(w.folder, "photo.jpg")); err != nil {
		t.Errorf("the chat's own file: %v", err)
	}
}

// When hermes serve runs in the home directory (a service started
// without one), the home is the working directory: hidden files and
// folders, where programs keep their keys, stay home all the same.
func TestOutboundWorkdirIsHome(t *testing.T) {
	w := newAttachWorld(t)
	w.out.workdir = w.home
	for _, p := range []string{".gnupg/private-keys-v1.d/key", ".config/gh/hosts.yml", "work/.git/config", ".mozilla/cookies.sqlite"} {
		path := filepath.Join(w.home, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("secret stuff"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := w.out.check("~/" + p); err == nil || !strings.Contains(err.Error(), "is hidden") {
			t.Errorf("check(~/%s) = %v; want refused as hidden", p, err)
		}
	}
	for _, p := range []string{".ssh/id_rsa", ".hermes/config.yaml"} {
		if _, err := w.out.check("~/" + p); err == nil {
			t.Errorf("check(~/%s) was allowed", p)
		}
	}
	if _, err := w.out.check("~/work/report.md"); err != nil {
		t.Errorf("a file in the home's project: %v", err)
	}
}

// A key spread across the boundary of two pieces of the scan is found.
func TestSecretInAcrossChunks(t *testing.T) {
	key := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n"
	for _, at := range []int{0, secretChunk - 10, secretChunk + secretOverlap - 20, 3*secretChunk + 5} {
		data := append(make([]byte, at), key...)
		for i := range at {
			data[i] = 'a' + byte(i%26)
		}
		if got := secretIn(strings.NewReader(string(data))); got != "private_key" {
			t.Errorf("a key at %d: found %q", at, got)
		}
	}
	if got := secretIn(strings.NewReader(strings.Repeat("plain text ", 300000))); got != "" {
		t.Errorf("plain text: found %q", got)
	}
}
