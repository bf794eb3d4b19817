package config

import (
	"fmt"
	"time"
)

// Curator is the curator section, with Hermes Agent's keys: the skills
// curator that marks the skills the agent wrote and stopped using as
// stale, moves those unused for longer to skills/.archive, and, when
// asked, merges near-duplicates. It never deletes a skill: everything it
// moves, hermes skills restore brings back.
//
// Skills installed with hermes skills install, or written by hand, are
// never curated; bundled skills only with PruneBuiltins.
type Curator struct {
	// Enabled runs the curator on its schedule in hermes serve (true);
	// hermes skills curate runs it by hand either way.
	Enabled bool `yaml:"enabled"`
	// IntervalHours is how long after one run the next is due (168, a
	// week).
	IntervalHours int `yaml:"interval_hours"`
	// MinIdleHours is how long no turn may have started before a due run
	// starts (2), so it never competes with a conversation.
	MinIdleHours float64 `yaml:"min_idle_hours"`
	// StaleAfterDays marks a skill unused this long as stale (14); it
	// stays usable, and using it clears the mark.
	StaleAfterDays int `yaml:"stale_after_days"`
	// ArchiveAfterDays moves a skill unused this long to skills/.archive
	// (30), out of the index.
	ArchiveAfterDays int `yaml:"archive_after_days"`
	// Consolidate asks the model to find near-duplicate skills and merge
	// each group into one (false: it costs a model call).
	Consolidate bool `yaml:"consolidate"`
	// PruneBuiltins lets the curator mark and archive the bundled skills
	// too. Hermes Agent's default is true; hermes's is false, since the
	// skills it ships are not the agent's to retire. A bundled skill's
	// clock starts when the curator first sees it, so turning this on
	// archives nothing at once.
	PruneBuiltins bool `yaml:"prune_builtins"`
	// ArchiveTTLDays deletes what has been in the archive this long; 0
	// (the default) keeps the archive forever.
	ArchiveTTLDays int `yaml:"archive_ttl_days"`
}

// defaultCurator is Hermes Agent's curator defaults, but for
// prune_builtins (see Curator.PruneBuiltins).
func defaultCurator() Curator {
	return Curator{Enabled: true, IntervalHours: 168, MinIdleHours: 2, StaleAfterDays: 14, ArchiveAfterDays: 30}
}

// Interval is IntervalHours as a duration.
func (c Curator) Interval() time.Duration { return time.Duration(c.IntervalHours) * time.Hour }

// MinIdle is MinIdleHours as a duration.
func (c Curator) MinIdle() time.Duration { return time.Duration(c.MinIdleHours * float64(time.Hour)) }

// StaleAfter is StaleAfterDays as a duration.
func (c Curator) StaleAfter() time.Duration { return days(c.StaleAfterDays) }

// ArchiveAfter is ArchiveAfterDays as a duration.
func (c Curator) ArchiveAfter() time.Duration { return days(c.ArchiveAfterDays) }

// ArchiveTTL is ArchiveTTLDays as a duration; zero keeps the archive.
func (c Curator) ArchiveTTL() time.Duration { return days(c.ArchiveTTLDays) }

func days(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }

// maxCuratorDays bounds the day counts, so a typo of extra digits is
// caught and the durations cannot overflow.
const maxCuratorDays = 36500

// validateCurator checks the curator's numbers: a run needs an interval,
// and a skill is archived no sooner than it is marked stale.
func validateCurator(c *Config, where func(key string) string) []error {
	cu := c.Curator
	var errs []error
	bad := func(key string, v any, accept string) {
		k := "curator." + key
		errs = append(errs, badValue(where(k), k, fmt.Sprint(v), "is not accepted; "+accept))
	}
	if cu.IntervalHours < 1 || cu.IntervalHours > maxCuratorDays*24 {
		bad("interval_hours", cu.IntervalHours, "give the hours between runs, at least 1 (168 is a week)")
	}
	if cu.MinIdleHours < 0 || cu.MinIdleHours > float64(maxCuratorDays*24) {
		bad("min_idle_hours", cu.MinIdleHours, "give the hours without a turn before a run starts, 0 or more (2)")
	}
	if cu.StaleAfterDays < 1 || cu.StaleAfterDays > maxCuratorDays {
		bad("stale_after_days", cu.StaleAfterDays, "give the days unused after which a skill is marked stale, at least 1 (14)")
	}
	switch {
	case cu.ArchiveAfterDays < 1 || cu.ArchiveAfterDays > maxCuratorDays:
		bad("archive_after_days", cu.ArchiveAfterDays, "give the days unused after which a skill is archived, at least 1 (30)")
	case cu.ArchiveAfterDays < cu.StaleAfterDays:
		bad("archive_after_days", cu.ArchiveAfterDays, fmt.Sprintf("give at least curator.stale_after_days (%d): a skill is marked stale before it is archived", cu.StaleAfterDays))
	}
	if cu.ArchiveTTLDays < 0 || cu.ArchiveTTLDays > maxCuratorDays {
		bad("archive_ttl_days", cu.ArchiveTTLDays, "give the days archived skills are kept, or 0 to keep them forever")
	}
	return errs
}
