package curator

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/skill"
)

// now is the tests' present.
func now() time.Time { return time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC) }

// rig is a skills directory with a library over it on a fake clock.
type rig struct {
	t   *testing.T
	dir string
	clk *clock.Fake
	lib *skill.Library
}

func newRig(t *testing.T) *rig {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "skills")
	clk := clock.NewFake(now())
	lib := skill.Open(skill.Options{Dir: dir, Platform: "linux", Clock: clk, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return &rig{t: t, dir: dir, clk: clk, lib: lib}
}

// skillDoc is a SKILL.md of name about topic.
func skillDoc(name, topic string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: How to %s.\n---\n# %s\n\n## Procedure\n1. Prepare for %s.\n2. Do %s.\n", name, topic, name, topic, topic)
}

// add writes a skill under category with a support file, and gives it a
// usage record of origin by, last active ago days ago (by "" leaves no
// record).
func (r *rig) add(category, name string, by skill.Origin, ago time.Duration) {
	r.t.Helper()
	d := filepath.Join(r.dir, filepath.FromSlash(category), name)
	for p, content := range map[string]string{"SKILL.md": skillDoc(name, strings.ReplaceAll(name, "-", " ")), "references/notes.md": "notes of " + name + "\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(d, p)), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, p), []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	old := now().Add(-ago)
	if err := os.Chtimes(filepath.Join(d, "SKILL.md"), old, old); err != nil {
		r.t.Fatal(err)
	}
	if by != "" {
		r.setUsage(name, skill.Usage{CreatedBy: by, CreatedAt: old.Add(-time.Hour), UsedAt: old, Uses: 1})
	}
}

func (r *rig) setUsage(name string, u skill.Usage) {
	r.t.Helper()
	if err := r.lib.UpdateUsage(func(recs map[string]skill.Usage) error { recs[name] = u; return nil }); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) usage(name string) skill.Usage {
	r.t.Helper()
	recs, err := r.lib.Usage()
	if err != nil {
		r.t.Fatal(err)
	}
	return recs[name]
}

// options are the defaults of config's curator section.
func (r *rig) options() Options {
	return Options{Library: r.lib, Clock: r.clk, StaleAfter: 14 * 24 * time.Hour, ArchiveAfter: 30 * 24 * time.Hour}
}

// tree is every file under dir by slash path, with its bytes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".lock" || d.Name() == "run.lock" {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails the test when the trees differ, naming the files.
func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if v, ok := after[k]; !ok {
			t.Errorf("%s: %s is gone", what, k)
		} else if v != before[k] {
			t.Errorf("%s: %s changed", what, k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s: %s appeared", what, k)
		}
	}
}

// model is an OpenAI-compatible provider on the scripted server srv.
func model(srv *llmtest.Server) Model {
	return Model{Provider: openai.NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m"}), Name: "curator-model"}
}

// mergeAnswer is the model's answer merging sources into name.
func mergeAnswer(name, category, content string, sources ...string) string {
	data, _ := json.Marshal(map[string]any{"merges": []map[string]any{{"sources": sources, "name": name, "category": category, "content": content}}})
	return "Here are the merges:\n```json\n" + string(data) + "\n```"
}

func names(skills []*skill.Skill) []string {
	var out []string
	for _, s := range skills {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}
