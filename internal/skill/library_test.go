package skill

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLibraryLoads(t *testing.T) {
	dir, ext := t.TempDir(), t.TempDir()
	writeSkill(t, dir, "devops", "deploy", doc("deploy", "Deploy the site."))
	writeSkill(t, dir, "", "plain", doc("plain", "No category.", "metadata: {hermes: {category: notes}}"))
	writeSkill(t, dir, "research/papers", "arxiv", doc("arxiv", "Find papers."))
	writeSkill(t, dir, "devops", "broken", "---\nname: broken\n---\n")
	writeSkill(t, dir, "devops", "misnamed", doc("other-name", "Wrong name."))
	writeSkill(t, dir, "mac", "mac-only", doc("mac-only", "Mac.", "platforms: [macos]"))
	writeSkill(t, ext, "shared", "team-tool", doc("team-tool", "Shared."))
	writeSkill(t, ext, "shared", "deploy", doc("deploy", "Shadowed by the local one."))
	writeFile(t, filepath.Join(dir, ".hub", "x", FileName), doc("x", "hidden dirs are skipped"))

	lib := open(dir, ext)
	var got []string
	for _, sk := range lib.Skills() {
		got = append(got, sk.group()+"/"+sk.Name)
	}
	want := []string{"devops/deploy", "notes/plain", "research/papers/arxiv", "shared/team-tool"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skills = %v; want %v", got, want)
	}
	if sk, _ := lib.Get("deploy"); sk.External || sk.Description != "Deploy the site." {
		t.Errorf("deploy = %+v; want the local one", sk)
	}
	if sk, _ := lib.Get("team-tool"); !sk.External {
		t.Error("team-tool is not marked external")
	}
	if _, ok := lib.Get("mac-only"); !ok {
		t.Error("Get does not find a skill of another platform")
	}
	if names := lib.Names(); !reflect.DeepEqual(names, []string{"arxiv", "deploy", "plain", "team-tool"}) {
		t.Errorf("Names = %v", names)
	}
	probs := lib.Problems()
	if len(probs) != 3 {
		t.Fatalf("problems = %+v; want broken, misnamed and the shadowed deploy", probs)
	}
	joined := ""
	for _, p := range probs {
		joined += p.File + ": " + p.Reason + "\n"
	}
	for _, w := range []string{"broken", `"description"`, "misnamed", `equal the directory name "misnamed"`, "already defined"} {
		if !strings.Contains(joined, w) {
			t.Errorf("problems lack %q:\n%s", w, joined)
		}
	}
}

func TestLibraryMissingDirs(t *testing.T) {
	lib := open(filepath.Join(t.TempDir(), "none"), "/does/not/exist")
	if n := len(lib.Skills()); n != 0 {
		t.Errorf("%d skills in missing dirs", n)
	}
	if p := lib.Problems(); len(p) != 0 {
		t.Errorf("problems = %v", p)
	}
}

func TestCacheReusedUntilChange(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "a", "one", doc("one", "First."))
	lib := open(dir)
	lib.Skills()
	first := lib.snap
	lib.Skills()
	if lib.snap != first {
		t.Error("an unchanged library was parsed again")
	}
}

func TestCacheSeesPlainWrites(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "a", "one", doc("one", "First."))
	lib := open(dir)
	if n := len(lib.Skills()); n != 1 {
		t.Fatalf("%d skills", n)
	}
	// A new skill, written without this library.
	writeSkill(t, dir, "a", "two", doc("two", "Second."))
	if _, ok := lib.Get("two"); !ok {
		t.Error("a skill added by a plain write is not seen")
	}
	// An in-place edit of SKILL.md (no directory changes) with a
	// different size.
	p := filepath.Join(dir, "a", "one", FileName)
	writeFile(t, p, doc("one", "First, edited in place with a longer description."))
	if sk, _ := lib.Get("one"); !strings.Contains(sk.Description, "edited") {
		t.Errorf("in-place edit not seen: %q", sk.Description)
	}
	// Same size, new mtime.
	writeFile(t, p, doc("one", "First, EDITED in place with a longer description."))
	future := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(p, future, future); err != nil {
		t.Fatal(err)
	}
	if sk, _ := lib.Get("one"); !strings.Contains(sk.Description, "EDITED") {
		t.Errorf("same-size edit not seen: %q", sk.Description)
	}
	if err := os.RemoveAll(filepath.Join(dir, "a", "two")); err != nil {
		t.Fatal(err)
	}
	if _, ok := lib.Get("two"); ok {
		t.Error("a removed skill is still listed")
	}
}

func TestCacheSeesOtherProcess(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	lib := open(dir)
	if n := len(lib.Skills()); n != 0 {
		t.Fatalf("%d skills", n)
	}
	script := `mkdir -p "$1/ops/from-shell" && printf -- '---\nname: from-shell\ndescription: Written by another process.\n---\nbody\n' > "$1/ops/from-shell/SKILL.md"`
	if out, err := exec.Command(sh, "-c", script, "sh", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, ok := lib.Get("from-shell"); !ok {
		t.Error("a skill written by another process is not seen on the next call")
	}
}

func TestSymlinkedSkillDir(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	src := writeSkill(t, elsewhere, "", "linked", doc("linked", "Lives elsewhere."))
	if err := os.MkdirAll(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, filepath.Join(dir, "tools", "linked")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, ok := open(dir).Get("linked"); !ok {
		t.Error("a symlinked skill directory is not loaded")
	}
}

func TestPlatformMapping(t *testing.T) {
	if platformName("darwin") != "macos" || platformName("linux") != "linux" || platformName("windows") != "windows" {
		t.Error("GOOS mapping is wrong")
	}
	if Open(Options{}).opts.Platform == "" {
		t.Error("Open leaves the platform empty")
	}
}
