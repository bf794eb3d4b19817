package files

import (
	"context"
	"encoding/json"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/quick"

	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// hermesFiles are files of a hermes home, with their first line.
var hermesFiles = []string{
	"config.yaml", ".env", "state.db", "state.db-wal", "state.db-shm", "SOUL.md",
	"memories/MEMORY.md", "memories/USER.md", "skills/devops/deploy/SKILL.md", "tools/orders.yaml",
	"deliveries/job-1.md", "profiles/work/config.yaml", "profiles/work/memories/MEMORY.md", "cache/screenshots/a.png",
}

// hermesHomeWorld is a hermes home and the names that lead into it.
type hermesHomeWorld struct {
	base, home, user, work string
	// roots are spellings of the home directory: absolute, relative to
	// work, through links (one with a look-alike name), under ~.
	roots []string
	// dirs are spellings of directories inside it, through links.
	dirs []string
}

func newHermesHomeWorld(t *testing.T) *hermesHomeWorld {
	base := t.TempDir()
	w := &hermesHomeWorld{base: base, home: filepath.Join(base, "hermes home"), user: filepath.Join(base, "user"), work: filepath.Join(base, "proj")}
	for _, f := range hermesFiles {
		p := filepath.Join(w.home, f)
		must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		must(t, os.WriteFile(p, []byte("original "+f+"\n"), 0o600))
	}
	must(t, os.MkdirAll(w.user, 0o700))
	must(t, os.MkdirAll(filepath.Join(w.work, "sub"), 0o700))
	links := map[string]string{
		filepath.Join(base, "alias"):                 w.home,
		filepath.Join(base, "h\u0435rmes home"):      w.home, // Cyrillic е
		filepath.Join(base, "ｈｅｒｍｅｓ"):                w.home, // full-width
		filepath.Join(w.user, "hh"):                  w.home,
		filepath.Join(w.work, "skills-link"):         filepath.Join(w.home, "skills"),
		filepath.Join(w.work, "sub", "up"):           "../..",
		filepath.Join(w.work, "mem"):                 filepath.Join(w.home, "memories", "MEMORY.md"),
		filepath.Join(w.work, "dangling-tools.yaml"): filepath.Join(w.home, "tools", "new.yaml"),
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	w.roots = []string{
		w.home, "../hermes home", filepath.Join(base, "alias"), filepath.Join(base, "h\u0435rmes home"),
		filepath.Join(base, "ｈｅｒｍｅｓ"), "~/hh", "sub/up/hermes home", filepath.Join(w.work, "sub", "up", "alias"),
	}
	w.dirs = []string{"skills-link", filepath.Join(w.work, "skills-link")}
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// spell writes a path under the hermes home the way a model might: one
// of its names, an existing or new file at any depth, with "./", "//",
// ".." detours and a trailing slash thrown in.
func (w *hermesHomeWorld) spell(r *rand.Rand) (string, string) {
	var rel string
	switch r.Intn(4) {
	case 0, 1:
		rel = hermesFiles[r.Intn(len(hermesFiles))]
	case 2:
		parts := []string{"memories", "skills", "tools", "profiles", "new", "deliveries", "x"}
		n := 1 + r.Intn(5)
		var segs []string
		for i := 0; i < n; i++ {
			segs = append(segs, parts[r.Intn(len(parts))])
		}
		rel = strings.Join(segs, "/") + "/f.md"
	case 3:
		rel = ""
	}
	root := w.roots[r.Intn(len(w.roots))]
	if rel != "" && strings.HasPrefix(rel, "skills/") && r.Intn(2) == 0 {
		root, rel = w.dirs[r.Intn(len(w.dirs))], strings.TrimPrefix(rel, "skills/")
	}
	segs := strings.Split(rel, "/")
	var out []string
	for _, s := range segs {
		switch r.Intn(6) {
		case 0:
			out = append(out, ".")
		case 1:
			out = append(out, "")
		case 2:
			out = append(out, "nowhere", "..")
		}
		out = append(out, s)
	}
	p := root + "/" + strings.Join(out, "/")
	if r.Intn(4) == 0 {
		p += "/"
	}
	if r.Intn(5) == 0 {
		p = strings.ReplaceAll(p, "/", "//")
	}
	return p, rel
}

// snapshot is every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		} else {
			out[p+"/"] = ""
		}
		return nil
	})
	return out
}

// TestNothingUnderHermesHomeIsWritable: no spelling of any path under
// $HERMES_HOME, at any depth, is written by write_file or patch, whether
// HERMES_HOME itself is given absolute, relative or through a link.
func TestNothingUnderHermesHomeIsWritable(t *testing.T) {
	w := newHermesHomeWorld(t)
	t.Chdir(w.base)
	before := snapshot(t, w.home)
	for _, hh := range []string{w.home, "hermes home", filepath.Join(w.base, "alias")} {
		tools := map[string]tool.Tool{}
		for _, tl := range New(Options{Guard: writeguard.Guard{Home: w.user, HermesHome: hh}}) {
			tools[tl.Spec().Name] = tl
		}
		ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s", Workdir: w.work})
		call := func(name string, args map[string]any) error {
			raw, _ := json.Marshal(args)
			_, err := tools[name].Call(ctx, raw)
			return err
		}
		prop := func(seed int64) bool {
			r := rand.New(rand.NewSource(seed))
			p, rel := w.spell(r)
			werr := call("write_file", map[string]any{"path": p, "content": "pwned\n"})
			perr := call("patch", map[string]any{"path": p, "old_string": "original " + rel, "new_string": "pwned"})
			for _, err := range []error{werr, perr} {
				if te, ok := tool.AsError(err); !ok || te.Code != tool.CodeDenied {
					t.Errorf("HERMES_HOME %q: %s was not refused: %v", hh, p, err)
					return false
				}
			}
			return true
		}
		if err := quick.Check(prop, &quick.Config{MaxCount: 400}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"mem", "dangling-tools.yaml", "skills-link/devops/deploy/SKILL.md"} {
			if err := call("write_file", map[string]any{"path": p, "content": "pwned\n"}); err == nil {
				t.Errorf("HERMES_HOME %q: write through the link %s allowed", hh, p)
			}
		}
	}
	after := snapshot(t, w.home)
	if len(after) != len(before) {
		t.Errorf("the hermes home has %d entries, had %d", len(after), len(before))
	}
	for p, c := range before {
		if after[p] != c {
			t.Errorf("%s changed: %q", p, after[p])
		}
	}
	// Beside the home, writing still works.
	raw, _ := json.Marshal(map[string]any{"path": "notes.md", "content": "ok"})
	if _, err := New(Options{Guard: writeguard.Guard{Home: w.user, HermesHome: w.home}})[1].Call(
		tool.WithInvocation(context.Background(), tool.Invocation{Workdir: w.work}), raw); err != nil {
		t.Errorf("writing beside the hermes home: %v", err)
	}
}
