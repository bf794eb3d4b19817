package curator

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/skill"
)

const day = 24 * time.Hour

// TestRunArchivesAndMarks: of the agent's skills, one unused 40 days is
// moved whole to the archive (its files byte-identical), one unused 20
// days is marked stale and stays usable, one used yesterday is left
// alone; installed and hand-written skills are never touched, however
// old. Restore brings the archived one back as it was, and the next run
// does not archive it again at once.
func TestRunArchivesAndMarks(t *testing.T) {
	r := newRig(t)
	r.add("devops", "old-trick", skill.OriginAgent, 40*day)
	r.add("", "aging-notes", skill.OriginAgent, 20*day)
	r.add("devops", "fresh-skill", skill.OriginAgent, day)
	r.add("", "installed-one", skill.OriginUser, 400*day)
	r.add("", "hand-written", "", 400*day)
	before := tree(t, r.dir)

	rep, err := Run(context.Background(), r.options())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Archived) != 1 || rep.Archived[0].Name != "old-trick" {
		t.Errorf("archived %+v, want old-trick", rep.Archived)
	}
	if len(rep.Stale) != 1 || rep.Stale[0].Name != "aging-notes" {
		t.Errorf("stale %+v, want aging-notes", rep.Stale)
	}
	if rep.LeftAlone.User != 2 || len(rep.Errors) != 0 {
		t.Errorf("left alone %+v, errors %q", rep.LeftAlone, rep.Errors)
	}
	after := tree(t, r.dir)
	for _, f := range []string{"SKILL.md", "references/notes.md"} {
		if got := after[".archive/old-trick/"+f]; got != before["devops/old-trick/"+f] {
			t.Errorf("archived %s = %q, want the original bytes", f, got)
		}
		if _, ok := after["devops/old-trick/"+f]; ok {
			t.Errorf("devops/old-trick/%s is still in place", f)
		}
	}
	for _, name := range []string{"aging-notes", "fresh-skill", "installed-one", "hand-written"} {
		for k, v := range before {
			if strings.Contains(k, name+"/") && after[k] != v {
				t.Errorf("%s changed", k)
			}
		}
	}
	if got := names(r.lib.Skills()); !slices.Equal(got, []string{"aging-notes", "fresh-skill", "hand-written", "installed-one"}) {
		t.Errorf("skills after the run %q", got)
	}
	if !r.usage("aging-notes").Stale() || r.usage("fresh-skill").Stale() {
		t.Errorf("stale marks: aging-notes %v, fresh-skill %v", r.usage("aging-notes").Stale(), r.usage("fresh-skill").Stale())
	}

	// A stale skill is still usable, and using it clears the mark.
	if _, err := r.lib.Invocation("aging-notes", ""); err != nil {
		t.Fatal(err)
	}
	if r.usage("aging-notes").Stale() {
		t.Error("a use did not clear the stale mark")
	}

	res, err := r.lib.Restore("old-trick")
	if err != nil || !slices.Equal(res.Skills, []string{"old-trick"}) {
		t.Fatalf("restore: %+v, %v", res, err)
	}
	sameTree(t, "after restore", filter(before, "old-trick/"), filter(tree(t, r.dir), "old-trick/"))
	rep, err = Run(context.Background(), r.options())
	if err != nil || len(rep.Archived) != 0 {
		t.Errorf("the run after a restore archived %+v (%v)", rep.Archived, err)
	}
}

// TestDryRunChangesNothing: a dry run reports the same stale and
// archived skills and leaves every file as it was.
func TestDryRunChangesNothing(t *testing.T) {
	r := newRig(t)
	r.add("devops", "old-trick", skill.OriginAgent, 40*day)
	r.add("", "aging-notes", skill.OriginAgent, 20*day)
	before := tree(t, r.dir)
	o := r.options()
	o.DryRun = true
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Archived) != 1 || len(rep.Stale) != 1 || !rep.DryRun {
		t.Errorf("dry run report %+v", rep)
	}
	sameTree(t, "dry run", before, tree(t, r.dir))
}

// TestBundledNeverTouched: the skills shipped with hermes, however long
// unused, are left alone unless prune_builtins; with it, the first run
// only starts their clocks, and one unused past archive_after_days is
// archived like the agent's.
func TestBundledNeverTouched(t *testing.T) {
	r := newRig(t)
	installed, err := skill.InstallBundled(r.dir)
	if err != nil || len(installed) == 0 {
		t.Fatalf("bundled skills: %q, %v", installed, err)
	}
	old := now().Add(-3 * 365 * day)
	for _, name := range installed {
		sk, _ := r.lib.Get(name)
		os.Chtimes(sk.Path, old, old)
		r.setUsage(name, skill.Usage{CreatedBy: skill.OriginAgent, CreatedAt: old})
	}
	before := tree(t, r.dir)
	rep, err := Run(context.Background(), r.options())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Archived)+len(rep.Stale) != 0 || rep.LeftAlone.Bundled != len(installed) {
		t.Errorf("without prune_builtins: %+v", rep)
	}
	sameTree(t, "bundled skills", before, tree(t, r.dir))

	// With prune_builtins, a bundled skill never seen starts its clock.
	fresh := t.TempDir()
	lib := skill.Open(skill.Options{Dir: fresh, Platform: "linux", Clock: r.clk})
	if _, err := skill.InstallBundled(fresh); err != nil {
		t.Fatal(err)
	}
	o := r.options()
	o.PruneBuiltins, o.Library = true, lib
	if rep, err := Run(context.Background(), o); err != nil || len(rep.Archived) != 0 {
		t.Errorf("first sight under prune_builtins archived %+v (%v)", rep.Archived, err)
	}
	o.Library = r.lib
	rep, err = Run(context.Background(), o)
	if err != nil || len(rep.Archived) != len(installed) {
		t.Errorf("prune_builtins archived %+v (%v), want every old bundled skill", rep.Archived, err)
	}
}

// filter keeps the files whose path holds part, keyed by the path from
// part on, so a skill's files compare wherever it sits.
func filter(files map[string]string, part string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		if i := strings.Index(k, part); i >= 0 && !strings.HasPrefix(k, ".archive/") && !strings.HasPrefix(k, ".curator/") {
			out[k[i:]] = v
		}
	}
	return out
}

// TestProtectedSkillsStay: a skill a job loads is never archived.
func TestProtectedSkillsStay(t *testing.T) {
	r := newRig(t)
	r.add("", "monthly-report", skill.OriginAgent, 90*day)
	o := r.options()
	o.Protected = map[string]string{"monthly-report": "loaded by job month-end"}
	rep, err := Run(context.Background(), o)
	if err != nil || len(rep.Archived) != 0 || len(rep.Protected) != 1 {
		t.Errorf("protected skill: %+v, %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "monthly-report", "SKILL.md")); err != nil {
		t.Error(err)
	}
}
