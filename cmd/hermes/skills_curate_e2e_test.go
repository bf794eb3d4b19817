package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// curatedHome is a home with skills the agent wrote — one unused for 40
// days, one for 20, two recent near-duplicates — one installed, and a
// model for consolidation. The ages are set in skills/.curator/usage.json,
// where hermes records them.
func curatedHome(t *testing.T, srv *llmtest.Server) *home {
	h := newHome(t)
	h.write("config.yaml", modelConfig(srv))
	skills := filepath.Join(h.dir, "skills")
	now := time.Now().UTC()
	usage := map[string]any{}
	for _, s := range []struct {
		category, name, by string
		age                time.Duration
	}{
		{"devops", "old-trick", "agent", 40 * 24 * time.Hour},
		{"", "aging-notes", "agent", 20 * 24 * time.Hour},
		{"devops", "k8s-deploy", "agent", 2 * 24 * time.Hour},
		{"devops", "deploy-kubernetes", "agent", 3 * 24 * time.Hour},
		{"", "from-a-friend", "user", 400 * 24 * time.Hour},
	} {
		dir := filepath.Join(skills, s.category, s.name)
		for rel, content := range map[string]string{
			"SKILL.md":            "---\nname: " + s.name + "\ndescription: How to " + strings.ReplaceAll(s.name, "-", " ") + ".\n---\n# " + s.name + "\n\n1. Do " + s.name + ".\n",
			"references/notes.md": "notes of " + s.name + "\n",
		} {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		usage[s.name] = map[string]any{"created_by": s.by, "created_at": now.Add(-s.age)}
	}
	data, _ := json.Marshal(map[string]any{"skills": usage})
	if err := os.MkdirAll(filepath.Join(skills, ".curator"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, ".curator", "usage.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// files is every file under dir with its content, but the locks.
func files(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "lock") {
			return err
		}
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = string(data)
		return nil
	})
	return out
}

// TestCurateDryRunThenRun runs the binary: a dry run prints the stale,
// archived and merged skills and changes no file; the run does it; the
// list shows the stale mark; the archive lists what went; restore undoes
// the merge and brings the archived skill back as it was.
func TestCurateDryRunThenRun(t *testing.T) {
	srv := llmtest.New(t)
	h := curatedHome(t, srv)
	merged := "---\nname: kubernetes-deploy\ndescription: Deploy to Kubernetes.\n---\n# kubernetes-deploy\n\n1. Do k8s-deploy.\n2. Do deploy-kubernetes.\n"
	answer, _ := json.Marshal(map[string]any{"merges": []any{map[string]any{
		"sources": []string{"k8s-deploy", "deploy-kubernetes"}, "name": "kubernetes-deploy", "category": "devops", "content": merged}}})
	srv.Enqueue(llmtest.Reply{Text: string(answer)}, llmtest.Reply{Text: string(answer)})
	skills := filepath.Join(h.dir, "skills")
	before := files(t, skills)

	r := h.hermes("skills", "curate", "--dry-run", "--consolidate")
	if r.code != 0 {
		t.Fatalf("dry run: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"Dry run: nothing was changed", "Would mark stale", "aging-notes", "Would archive", "old-trick",
		"would merge k8s-deploy + deploy-kubernetes -> kubernetes-deploy (devops)", "| 2. Do deploy-kubernetes.", "1 installed or hand-written"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, r.stdout)
		}
	}
	after := files(t, skills)
	if len(after) != len(before) {
		t.Errorf("the dry run changed the files: %d before, %d after", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("the dry run changed %s", k)
		}
	}

	r = h.hermes("skills", "curate", "--consolidate")
	if r.code != 0 || !strings.Contains(r.stdout, "Archived") || !strings.Contains(r.stdout, "merged k8s-deploy + deploy-kubernetes") {
		t.Fatalf("run: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := files(t, filepath.Join(skills, ".archive", "old-trick")); got["SKILL.md"] != before["devops/old-trick/SKILL.md"] ||
		got["references/notes.md"] != before["devops/old-trick/references/notes.md"] {
		t.Errorf("old-trick in the archive: %q", got)
	}
	if data, err := os.ReadFile(filepath.Join(skills, "devops", "kubernetes-deploy", "SKILL.md")); err != nil || string(data) != merged {
		t.Errorf("merged skill: %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(skills, ".curator", "state.json")); err != nil {
		t.Errorf("the run was not recorded: %v", err)
	}
	r = h.hermes("skills", "list")
	if !strings.Contains(r.stdout, "aging-notes (stale)") || strings.Contains(r.stdout, "old-trick") || strings.Contains(r.stdout, " k8s-deploy") {
		t.Errorf("list after the run:\n%s", r.stdout)
	}
	r = h.hermes("skills", "archive")
	if !strings.Contains(r.stdout, "old-trick") || !strings.Contains(r.stdout, "k8s-deploy + deploy-kubernetes -> kubernetes-deploy") {
		t.Errorf("archive:\n%s%s", r.stdout, r.stderr)
	}

	r = h.hermes("skills", "restore", "kubernetes-deploy")
	if r.code != 0 || !strings.Contains(r.stdout, "undid the merge into kubernetes-deploy") {
		t.Fatalf("restore merge: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.hermes("skills", "restore", "old-trick")
	if r.code != 0 || !strings.Contains(r.stdout, "restored old-trick") {
		t.Fatalf("restore: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	restored := files(t, skills)
	for k, v := range before {
		if !strings.HasPrefix(k, ".curator") && restored[k] != v {
			t.Errorf("after the restores %s differs", k)
		}
	}
	if r := h.hermes("skills", "restore", "never-was"); r.code == 0 || !strings.Contains(r.stderr, "no archived skill or merge named") {
		t.Errorf("restoring an unknown name: %d %s", r.code, r.stderr)
	}
}

// TestCurateHelpExplains: the help says what is curated, the keys and how
// to undo.
func TestCurateHelpExplains(t *testing.T) {
	r := newHome(t).hermes("skills", "curate", "--help")
	for _, want := range []string{"--dry-run", "stale_after_days", "archive_after_days", "prune_builtins", "hermes skills restore NAME"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stdout)
		}
	}
}
