package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBuild(t *testing.T) {
	day := time.Date(2026, 12, 2, 11, 7, 0, 0, time.UTC)
	got := Build(Options{Now: day})
	if !strings.HasPrefix(got, Identity) {
		t.Errorf("the prompt does not start with the identity:\n%s", got)
	}
	if !strings.HasSuffix(got, "Today is Wednesday, 2 December 2026.") {
		t.Errorf("the prompt does not end with the date:\n%s", got)
	}
	if later := Build(Options{Now: day.Add(12 * time.Hour)}); later != got {
		t.Error("the prompt changed within one day; the cached prefix would be lost")
	}
	if own := Build(Options{Identity: "  You are Ada.\n", Now: day}); !strings.HasPrefix(own, "You are Ada.\n\n# Using tools") {
		t.Errorf("a custom identity is not used as written:\n%s", own)
	}
}

func TestAssembleTiers(t *testing.T) {
	dir := newTree(t)
	write(t, dir, "repo/AGENTS.md", "Run make test before committing.")
	day := time.Date(2026, 12, 2, 11, 7, 0, 0, time.UTC)
	p := Assemble(Options{
		Workdir:     dir + "/repo",
		MemoryTool:  true,
		SkillsIndex: "# Skills\n- deploy: ship the site\n",
		Memory:      "\n# Memory\n- The user is Ada.\n",
		Now:         day,
		Scan:        stubScan,
	})

	stable := Identity + "\n\n" + Guidance + "\n\n" + MemoryGuidance + "\n\n# Skills\n- deploy: ship the site"
	if p.Stable != stable {
		t.Errorf("stable tier:\n%s\nwant:\n%s", p.Stable, stable)
	}
	if !strings.HasPrefix(p.Context, contextHeader+"\n\n## AGENTS.md\n\nRun make test") {
		t.Errorf("context tier does not hold AGENTS.md under its heading:\n%s", p.Context)
	}
	if want := "# Memory\n- The user is Ada.\n\nToday is Wednesday, 2 December 2026."; p.Volatile != want {
		t.Errorf("volatile tier = %q, want %q", p.Volatile, want)
	}
	if want := p.Stable + "\n\n" + p.Context + "\n\n" + p.Volatile; p.Text() != want {
		t.Errorf("Text does not join the tiers in order with one blank line")
	}
}

func TestTextSkipsEmptyTiers(t *testing.T) {
	cases := []struct {
		p    Prompt
		want string
	}{
		{Prompt{Stable: "a", Volatile: "c"}, "a\n\nc"},
		{Prompt{Context: "b"}, "b"},
		{Prompt{Stable: "a", Context: "b"}, "a\n\nb"},
		{Prompt{}, ""},
	}
	for _, c := range cases {
		if got := c.p.Text(); got != c.want {
			t.Errorf("%+v.Text() = %q, want %q", c.p, got, c.want)
		}
	}
}

func TestMemoryGuidanceOnlyWithTheTool(t *testing.T) {
	without := Assemble(Options{})
	if strings.Contains(without.Stable, MemoryGuidance) {
		t.Error("memory guidance is given although the memory tool is not offered")
	}
	with := Assemble(Options{MemoryTool: true})
	if !strings.Contains(with.Stable, MemoryGuidance) {
		t.Error("memory guidance is missing although the memory tool is offered")
	}
}

// TestKnowledgeGuidanceOnlyWithTheTool: the guidance to search and cite
// the knowledge base is there exactly when kb_search is offered.
func TestKnowledgeGuidanceOnlyWithTheTool(t *testing.T) {
	if strings.Contains(Assemble(Options{}).Stable, "kb_search") {
		t.Error("knowledge base guidance is given although kb_search is not offered")
	}
	if !strings.Contains(Assemble(Options{KnowledgeTool: true}).Stable, KnowledgeGuidance) {
		t.Error("knowledge base guidance is missing although kb_search is offered")
	}
}

func TestDateInLocation(t *testing.T) {
	// 23:30 UTC on 2 December is already 3 December in Tokyo.
	now := time.Date(2026, 12, 2, 23, 30, 0, 0, time.UTC)
	tokyo := time.FixedZone("JST", 9*3600)
	got := Assemble(Options{Now: now, Location: tokyo}).Volatile
	if got != "Today is Thursday, 3 December 2026." {
		t.Errorf("date in Tokyo = %q", got)
	}
	if got := Assemble(Options{}).Volatile; got != "" {
		t.Errorf("a zero Now gives a date line: %q", got)
	}
}

func TestDeterministic(t *testing.T) {
	dir := newTree(t)
	write(t, dir, "HERMES.md", "Outer rules.")
	write(t, dir, "repo/HERMES.md", "Repo rules.")
	write(t, dir, "repo/CLAUDE.md", "Claude rules.")
	write(t, dir, "repo/sub/AGENTS.md", "Agents rules.")
	write(t, dir, "repo/sub/.cursorrules", "Cursor rules.")
	write(t, dir, "home/SOUL.md", "You are Ada.")
	morning := time.Date(2026, 12, 2, 0, 1, 0, 0, time.UTC)
	o := Options{
		HermesHome: dir + "/home", Workdir: dir + "/repo/sub", Memory: "- fact",
		SkillsIndex: "# Skills", MemoryTool: true, Now: morning, Scan: stubScan,
	}
	first := Assemble(o)
	second := Assemble(o)
	if first != second {
		t.Fatal("two assemblies of the same inputs differ")
	}
	o.Now = morning.Add(23*time.Hour + 58*time.Minute)
	if evening := Assemble(o); evening != first {
		t.Errorf("the prompt changed within one day:\n%s\n---\n%s", first.Text(), evening.Text())
	}
	o.Now = morning.Add(24 * time.Hour)
	next := Assemble(o)
	if next.Stable != first.Stable || next.Context != first.Context {
		t.Error("a new day changed more than the volatile tier")
	}
	if next.Volatile == first.Volatile {
		t.Error("a new day did not change the date")
	}
}

func BenchmarkAssemble(b *testing.B) {
	dir := b.TempDir()
	for _, d := range []string{"repo/.git", "repo/a/b/c"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{"repo/HERMES.md", "repo/AGENTS.md", "repo/a/b/c/CLAUDE.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(strings.Repeat("Run the tests before you commit.\n", 300)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	o := Options{Workdir: filepath.Join(dir, "repo/a/b/c"), MemoryTool: true, Now: time.Now()}
	for b.Loop() {
		Assemble(o)
	}
}
