package main

import (
	"regexp"
	"testing"
	"time"
)

// Times print in the local zone with its name; a missing time as "-".
func TestLocalTime(t *testing.T) {
	at := time.Date(2026, 12, 3, 9, 30, 0, 0, time.UTC)
	want := at.Local().Format("2006-01-02 15:04:05 ") + at.Local().Format("MST")
	if got := localTime(at); got != want || !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+$`).MatchString(got) {
		t.Errorf("localTime = %q, want %q", got, want)
	}
	if got := localTime(time.Time{}); got != "-" {
		t.Errorf("zero time = %q", got)
	}
}
