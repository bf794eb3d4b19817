package config

import (
	"strings"
	"testing"
	"time"
)

// memory.long_term is a section, or a bool standing for its enabled:
// the old `long_term: false` still turns long-term memory off, the cap on
// extractions has a default, and a wrong value names its key.
func TestLongTermSection(t *testing.T) {
	for _, tt := range []struct {
		yaml    string
		on      bool
		perDay  int
		wantErr string
	}{
		{"", true, 200, ""},
		{"memory: {long_term: false}\n", false, 200, ""},
		{"memory: {long_term: true}\n", true, 200, ""},
		{"memory: {long_term: {max_extractions_per_day: 20}}\n", true, 20, ""},
		{"memory: {long_term: {enabled: false, max_extractions_per_day: 0}}\n", false, 0, ""},
		{"memory: {long_term: maybe}\n", false, 0, "memory.long_term.enabled: \"maybe\" is not accepted"},
		{"memory: {long_term: {expire_after: -1h}}\n", false, 0, "memory.long_term.expire_after: \"-1h\" is not accepted; use zero or more"},
		{"memory: {long_term: {max_extractions_per_day: -1}}\n", false, 0, "memory.long_term.max_extractions_per_day: \"-1\" is not accepted; use zero or more"},
	} {
		l, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.yaml, err)
			continue
		}
		if lt := l.Config.Memory.LongTerm; lt.On() != tt.on || lt.MaxExtractionsPerDay != tt.perDay {
			t.Errorf("%q: long_term = %+v (on %v), want on %v, %d a day", tt.yaml, lt, lt.On(), tt.on, tt.perDay)
		}
	}
	for yaml, want := range map[string]string{
		"memory: {long_term: {recall: fuzzy}}\n":    `memory.long_term.recall: "fuzzy" is not accepted; use one of hybrid, words, vectors`,
		"memory: {long_term: {min_margin: 1.5}}\n":  `memory.long_term.min_margin: "1.5" is not accepted; use a cosine margin from 0 to 1`,
		"memory: {long_term: {min_margin: -0.1}}\n": `memory.long_term.min_margin: "-0.1" is not accepted`,
	} {
		if _, err := loadFiles(t, map[string]string{"config.yaml": yaml}, nil, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %q", yaml, err, want)
		}
	}
	l, err := loadFiles(t, map[string]string{"config.yaml": "memory: {long_term: {recall: words, min_margin: 0.2}}\n"}, nil, nil)
	if lt := l.Config.Memory.LongTerm; err != nil || lt.Recall != "words" || lt.MinMargin != 0.2 {
		t.Errorf("recall and min_margin: %+v, %v", lt, err)
	}
	l, err = loadFiles(t, map[string]string{"config.yaml": "memory: {long_term: {expire_after: 4320h}}\n"}, nil, nil)
	if err != nil || l.Config.Memory.LongTerm.ExpireAfter != 180*24*time.Hour {
		t.Errorf("expire_after: %v, %v", l.Config.Memory.LongTerm.ExpireAfter, err)
	}
}

// The variable of the section still turns it off, as before it was one:
// HERMES_MEMORY_LONG_TERM=false is memory.long_term.enabled; the key's
// own variable works too.
func TestLongTermFromTheEnvironment(t *testing.T) {
	for _, env := range []map[string]string{{"HERMES_MEMORY_LONG_TERM": "false"}, {"HERMES_MEMORY_LONG_TERM_ENABLED": "false"}} {
		l, err := loadFiles(t, map[string]string{"config.yaml": ""}, env, nil)
		if err != nil || l.Config.Memory.LongTerm.On() {
			t.Errorf("%v: on %v, %v; want off", env, l.Config.Memory.LongTerm.On(), err)
		}
	}
	if _, err := loadFiles(t, map[string]string{"config.yaml": ""}, map[string]string{"HERMES_MEMORY_LONG_TERM": "perhaps"}, nil); err == nil || !strings.Contains(err.Error(), "HERMES_MEMORY_LONG_TERM") {
		t.Errorf("a bad value: %v, want an error naming the variable", err)
	}
}
