package prompt

import (
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
