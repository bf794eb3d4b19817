package skill

import (
	"fmt"
	"strings"
	"testing"
)

func TestIndexEmpty(t *testing.T) {
	lib := open(t.TempDir())
	idx := lib.Index(Availability{}, 0)
	if !strings.HasPrefix(idx, Guidance) || !strings.Contains(idx, "No skills are saved yet") {
		t.Errorf("empty index = %q", idx)
	}
	if lib.Collapsed(Availability{}, 0) {
		t.Error("an empty library is collapsed")
	}
}

func TestIndexFull(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "devops", "deploy", doc("deploy", "Deploy the site\n  safely."))
	writeSkill(t, dir, "devops", "backup", doc("backup", "Back up the database."))
	writeSkill(t, dir, "", "notes", doc("notes", strings.Repeat("long ", 100)))
	lib := open(dir)
	idx := lib.Index(Availability{}, 0)
	want := "<available_skills>\ndevops:\n  - backup: Back up the database.\n  - deploy: Deploy the site safely.\ngeneral:\n  - notes: long long"
	if !strings.Contains(idx, want) {
		t.Errorf("index lacks\n%s\ngot\n%s", want, idx)
	}
	if !strings.Contains(idx, "…\n</available_skills>") {
		t.Errorf("long description is not cut:\n%s", idx)
	}
	if strings.Contains(idx, "skills_search") {
		t.Error("a full index points to skills_search")
	}
	for _, g := range []string{"5+ tool calls", "skill_manage", `action="patch"`} {
		if !strings.Contains(idx, g) {
			t.Errorf("guidance lacks %q", g)
		}
	}
}

func TestIndexCollapsedAndStable(t *testing.T) {
	dir := t.TempDir()
	genSkills(t, dir, 100)
	lib := open(dir)
	if !lib.Collapsed(Availability{}, 0) {
		t.Fatal("100 skills are not collapsed at the default limit")
	}
	if lib.Collapsed(Availability{}, 100) {
		t.Error("100 skills are collapsed at limit 100")
	}
	idx := lib.Index(Availability{}, 0)
	if !strings.Contains(idx, "cat00: s000, s010, s020,") || !strings.Contains(idx, "100 skills; only their names are listed. Use skills_search") {
		t.Errorf("collapsed index:\n%s", idx)
	}
	if strings.Contains(idx, "Generated skill number") {
		t.Error("collapsed index shows descriptions")
	}
	full := lib.Index(Availability{}, 1000)
	if !strings.Contains(full, "  - s000: Generated skill number 0") {
		t.Errorf("full index:\n%.400s", full)
	}
	for i := 0; i < 3; i++ {
		if again := lib.Index(Availability{}, 0); again != idx {
			t.Fatal("collapsed index bytes differ between calls")
		}
		lib.invalidate() // a re-parse must give the same bytes too
		if again := lib.Index(Availability{}, 1000); again != full {
			t.Fatal("full index bytes differ between calls")
		}
	}
}

func TestIndexFilters(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "x", "any-os", doc("any-os", "All platforms."))
	writeSkill(t, dir, "x", "win-only", doc("win-only", "Windows.", "platforms: [windows]"))
	writeSkill(t, dir, "x", "needs-browser", doc("needs-browser", "Needs browser.", "metadata: {hermes: {requires_toolsets: [browser]}}"))
	writeSkill(t, dir, "x", "needs-tool", doc("needs-tool", "Needs web_fetch.", "metadata: {hermes: {requires_tools: [web_fetch]}}"))
	writeSkill(t, dir, "x", "no-browser", doc("no-browser", "Fallback for browser.", "metadata: {hermes: {fallback_for_toolsets: [browser]}}"))
	writeSkill(t, dir, "x", "no-fetch", doc("no-fetch", "Fallback for web_fetch.", "metadata: {hermes: {fallback_for_tools: [web_fetch]}}"))
	lib := open(dir)
	cases := []struct {
		avail Availability
		shown []string
	}{
		{Availability{}, []string{"any-os", "no-browser", "no-fetch"}},
		{Availability{Toolsets: []string{"browser"}}, []string{"any-os", "needs-browser", "no-fetch"}},
		{Availability{Tools: []string{"web_fetch"}}, []string{"any-os", "needs-tool", "no-browser"}},
		{Availability{Toolsets: []string{"browser"}, Tools: []string{"web_fetch"}}, []string{"any-os", "needs-browser", "needs-tool"}},
	}
	all := []string{"any-os", "win-only", "needs-browser", "needs-tool", "no-browser", "no-fetch"}
	for _, c := range cases {
		idx := lib.Index(c.avail, 0)
		for _, name := range all {
			if got, want := strings.Contains(idx, "- "+name+":"), contains(c.shown, name); got != want {
				t.Errorf("avail %+v: %s shown = %v; want %v", c.avail, name, got, want)
			}
		}
	}
	win := Open(Options{Dir: dir, Platform: "windows", Logger: lib.log})
	if idx := win.Index(Availability{}, 0); !strings.Contains(idx, "- win-only:") {
		t.Error("windows library hides win-only")
	}
}

// genSkills writes n skills in 10 categories with realistic descriptions.
func genSkills(t testing.TB, dir string, n int) {
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("s%03d", i)
		desc := fmt.Sprintf("Generated skill number %d - deploy, verify and roll back service %d safely when a release fails its health checks.", i, i)
		writeSkill(t, dir, fmt.Sprintf("cat%02d", i%10), name, doc(name, desc, "metadata: {hermes: {tags: [gen, t"+fmt.Sprint(i)+"]}}"))
	}
}

// TestIndexSize logs the index's size for 0, 50 and 300 skills, full and
// collapsed, in characters and estimated tokens (chars/4).
func TestIndexSize(t *testing.T) {
	for _, n := range []int{0, 50, 300} {
		dir := t.TempDir()
		genSkills(t, dir, n)
		lib := open(dir)
		full := lib.Index(Availability{}, 1<<30)
		collapsed := lib.Index(Availability{}, 1)
		if n == 0 {
			collapsed = full
		}
		t.Logf("%3d skills: full %6d chars (~%5d tokens), collapsed %6d chars (~%5d tokens)",
			n, len(full), len(full)/4, len(collapsed), len(collapsed)/4)
		if n > 0 && len(collapsed) >= len(full) {
			t.Errorf("%d skills: collapsed index (%d) is not smaller than the full one (%d)", n, len(collapsed), len(full))
		}
	}
}

func BenchmarkIndexCached(b *testing.B) {
	dir := b.TempDir()
	genSkills(b, dir, 300)
	lib := open(dir)
	lib.Index(Availability{}, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lib.Index(Availability{}, 0)
	}
}
