package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/doctor"
	"github.com/hermes-go/hermes/internal/replica"
)

// TestConfigHash: the hash follows config.yaml, SOUL.md, skills/ and
// tools/, and nothing else (.env, memories, state.db).
func TestConfigHash(t *testing.T) {
	home := t.TempDir()
	p := config.PathsFor(home)
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hash := func() string {
		t.Helper()
		h, err := ConfigHash(p)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	empty := hash()
	write(p.ConfigFile, "model: {default: m}\n")
	withConfig := hash()
	if withConfig == empty {
		t.Fatalf("config.yaml did not change the hash")
	}
	write(p.EnvFile, "KEY=1\n")
	write(filepath.Join(p.MemoriesDir, "MEMORY.md"), "remembered\n")
	write(p.StateDB, "not a database")
	if hash() != withConfig {
		t.Errorf(".env, memories or state.db changed the hash")
	}
	before := withConfig
	for _, f := range []string{p.SoulFile, filepath.Join(p.SkillsDir, "ops", "deploy", "SKILL.md"), filepath.Join(home, "tools", "weather.yaml")} {
		write(f, "one\n")
		if h := hash(); h == before {
			t.Errorf("%s did not change the hash", f)
		} else {
			before = h
		}
	}
	// The same files in another home hash alike: replicas on a shared
	// volume or a config repository agree.
	other := config.PathsFor(t.TempDir())
	for _, rel := range []string{"config.yaml", "SOUL.md", "skills/ops/deploy/SKILL.md", "tools/weather.yaml"} {
		b, _ := os.ReadFile(filepath.Join(home, rel))
		write(filepath.Join(other.Home, rel), string(b))
	}
	if h, _ := ConfigHash(other); h != before {
		t.Errorf("the same files in another home hash to %s, want %s", h, before)
	}
}

// TestReplicasResult: doctor says which replicas run which configuration
// when they disagree, and that all is well when they agree with this
// home.
func TestReplicasResult(t *testing.T) {
	live := []replica.Replica{{Holder: "a/1", ConfigHash: "aaa"}, {Holder: "b/2", ConfigHash: "aaa"}}
	if r := replicasResult(live, "aaa"); r.Status != doctor.OK || !strings.Contains(r.Finding, "2 live") {
		t.Errorf("agreeing replicas: %+v", r)
	}
	if r := replicasResult(live, "bbb"); r.Status != doctor.Warn || !strings.Contains(r.Finding, "this home's files hash to bbb") {
		t.Errorf("this home differs: %+v", r)
	}
	live = append(live, replica.Replica{Holder: "c/3", ConfigHash: "ccc"})
	r := replicasResult(live, "aaa")
	if r.Status != doctor.Warn || !strings.Contains(r.Finding, "a/1, b/2 on aaa") || !strings.Contains(r.Finding, "c/3 on ccc") {
		t.Errorf("disagreeing replicas: %+v", r)
	}
	if r := replicasResult(nil, "aaa"); r.Status != doctor.OK {
		t.Errorf("no replicas: %+v", r)
	}
}
