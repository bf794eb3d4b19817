package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCuratorDefaults: with nothing set the curator runs weekly, after two
// idle hours, marks at 14 days and archives at 30, never merges, leaves
// the bundled skills alone and keeps the archive.
func TestCuratorDefaults(t *testing.T) {
	l, _, err := loadYAML(t, "")
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config.Curator
	if !c.Enabled || c.Interval() != 168*time.Hour || c.MinIdle() != 2*time.Hour || c.StaleAfter() != 14*24*time.Hour ||
		c.ArchiveAfter() != 30*24*time.Hour || c.Consolidate || c.PruneBuiltins || c.ArchiveTTL() != 0 {
		t.Errorf("defaults %+v", c)
	}
}

// TestCuratorSettings: Hermes Agent's keys are honoured, the backup ones
// are known and listed as not honoured when changed, and the curator's
// model is auxiliary.curator.
func TestCuratorSettings(t *testing.T) {
	l, _, err := loadYAML(t, `curator:
  enabled: false
  interval_hours: 24
  min_idle_hours: 0.5
  stale_after_days: 7
  archive_after_days: 7
  consolidate: true
  prune_builtins: true
  archive_ttl_days: 90
  backup: {enabled: false, keep: 5}
auxiliary:
  curator: {provider: openrouter, model: cheap-model, timeout: 600}
`)
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config.Curator
	if c.Enabled || c.IntervalHours != 24 || c.MinIdle() != 30*time.Minute || c.StaleAfterDays != 7 || c.ArchiveAfterDays != 7 ||
		!c.Consolidate || !c.PruneBuiltins || c.ArchiveTTLDays != 90 {
		t.Errorf("curator %+v", c)
	}
	if a := l.Config.Auxiliary.Curator; a.Provider != "openrouter" || a.Model != "cheap-model" {
		t.Errorf("auxiliary.curator %+v", a)
	}
	if len(l.Warnings) != 0 {
		t.Errorf("warnings %q", l.Warnings)
	}
	if !slices.Equal(l.Unhonoured, []string{"curator.backup.enabled"}) {
		t.Errorf("not honoured %q, want the changed backup key", l.Unhonoured)
	}
	if r := strings.Join(l.UnhonouredReport(), "\n"); !strings.Contains(r, "curator.backup.enabled: the curator keeps no backups") {
		t.Errorf("report %q", r)
	}
}

// TestCuratorRejected: every bad number names its key, the value and what
// is accepted.
func TestCuratorRejected(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"curator: {interval_hours: 0}", `curator.interval_hours: "0" is not accepted; give the hours between runs, at least 1`},
		{"curator: {min_idle_hours: -1}", `curator.min_idle_hours: "-1" is not accepted; use zero or more`},
		{"curator: {stale_after_days: 0}", `curator.stale_after_days: "0" is not accepted; give the days unused after which a skill is marked stale`},
		{"curator: {archive_after_days: -3}", `curator.archive_after_days: "-3" is not accepted; use zero or more`},
		{"curator: {stale_after_days: 20, archive_after_days: 10}", `curator.archive_after_days: "10" is not accepted; give at least curator.stale_after_days (20)`},
		{"curator: {archive_ttl_days: -1}", `curator.archive_ttl_days: "-1" is not accepted; use zero or more`},
		{"curator: {archive_after_days: 0}", `curator.archive_after_days: "0" is not accepted; give the days unused after which a skill is archived, at least 1 (30)`},
		{"curator: {archive_after_days: 99999999}", `curator.archive_after_days: "99999999" is not accepted`},
		{"curator: {interval_hours: weekly}", `curator.interval_hours`},
		{"curator: {consolidate: maybe}", `curator.consolidate`},
	} {
		_, _, err := loadYAML(t, tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
