package skill

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/redact"
)

func TestBundledSkillsAreValid(t *testing.T) {
	skills, err := bundledSkills()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"declared-tool": "hermes", "weekly-report-job": "hermes", "systematic-debugging": "software-development"}
	if len(skills) != len(want) {
		t.Fatalf("%d bundled skills; want %d", len(skills), len(want))
	}
	for _, b := range skills {
		if want[b.name] != b.category {
			t.Errorf("bundled %s in category %q", b.name, b.category)
		}
		if b.version == "" {
			t.Errorf("bundled %s has no version", b.name)
		}
		for rel, data := range b.files {
			if reason, found := redact.ScanInjection(string(data)); found {
				t.Errorf("bundled %s/%s trips the injection scanner: %s", b.name, rel, reason)
			}
		}
		body := string(b.files[FileName])
		for _, sec := range []string{"## When to Use", "## Procedure", "## Pitfalls", "## Verification"} {
			if !strings.Contains(body, sec) {
				t.Errorf("bundled %s lacks %s", b.name, sec)
			}
		}
	}
}

func TestInstallBundled(t *testing.T) {
	dir := t.TempDir()
	got, err := InstallBundled(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"declared-tool", "weekly-report-job", "systematic-debugging"}; !reflect.DeepEqual(got, want) {
		t.Errorf("installed %v; want %v", got, want)
	}
	lib := open(dir)
	if p := lib.Check(); len(p) != 0 {
		t.Errorf("installed bundled skills have problems: %v", p)
	}
	if sk, ok := lib.Get("declared-tool"); !ok || sk.group() != "hermes" || len(sk.SupportFiles()) == 0 {
		t.Errorf("declared-tool = %+v", sk)
	}
	if got, err := InstallBundled(dir); err != nil || len(got) != 0 {
		t.Errorf("second run installed %v, %v", got, err)
	}
}

// TestInstallBundledKeepsUserEdits simulates a newer hermes by lowering
// the versions recorded in the manifest.
func TestInstallBundledKeepsUserEdits(t *testing.T) {
	dir := t.TempDir()
	if _, err := InstallBundled(dir); err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(dir, "hermes", "declared-tool", FileName)
	mine := doc("declared-tool", "My own version.")
	writeFile(t, edited, mine)
	untouched := filepath.Join(dir, "software-development", "systematic-debugging", FileName)
	writeFile(t, untouched, "stale bundled text")
	if err := os.RemoveAll(filepath.Join(dir, "hermes", "weekly-report-job")); err != nil {
		t.Fatal(err)
	}

	// Pretend an older version was installed, and that the debugging
	// skill's file still has the hash of that older version.
	manPath := filepath.Join(dir, manifestName)
	var man manifest
	data, _ := os.ReadFile(manPath)
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	for _, e := range man.Skills {
		e.Version = "0.9"
	}
	man.Skills["systematic-debugging"].Files[FileName] = hashOf([]byte("stale bundled text"))
	data, _ = json.Marshal(man)
	writeFile(t, manPath, string(data))

	got, err := InstallBundled(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"systematic-debugging"}) {
		t.Errorf("updated %v; want only systematic-debugging", got)
	}
	if data, _ := os.ReadFile(edited); string(data) != mine {
		t.Error("a user-edited bundled skill was overwritten")
	}
	if data, _ := os.ReadFile(untouched); !strings.Contains(string(data), "name: systematic-debugging") {
		t.Error("an untouched bundled skill was not updated")
	}
	if _, err := os.Stat(filepath.Join(dir, "hermes", "weekly-report-job")); !os.IsNotExist(err) {
		t.Error("a bundled skill the user deleted came back")
	}
	// Once more: the edit is still the user's.
	if got, _ := InstallBundled(dir); len(got) != 0 {
		t.Errorf("third run changed %v", got)
	}
	if data, _ := os.ReadFile(edited); string(data) != mine {
		t.Error("a user-edited bundled skill was overwritten on a later run")
	}
}

func TestInstallBundledRespectsOwnSkill(t *testing.T) {
	dir := t.TempDir()
	own := writeSkill(t, dir, "mine", "systematic-debugging", doc("systematic-debugging", "My way."))
	got, err := InstallBundled(dir)
	if err != nil {
		t.Fatal(err)
	}
	if contains(got, "systematic-debugging") {
		t.Error("bundled skill installed over the user's skill of the same name")
	}
	if data, _ := os.ReadFile(filepath.Join(own, FileName)); !strings.Contains(string(data), "My way.") {
		t.Error("user's skill changed")
	}
}

func TestNewerVersion(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"1.0.1", "1.0.0", true}, {"1.0.0", "1.0.0", false}, {"1.10", "1.9", true},
		{"1.0", "1.0.0", false}, {"2", "1.9.9", true}, {"v1.2", "1.1", true}, {"1.0.0", "", true},
	}
	for _, c := range cases {
		if got := newerVersion(c.a, c.b); got != c.want {
			t.Errorf("newerVersion(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
