package main

import "time"

// localTime is how hermes prints a moment: in the machine's local zone, with
// the zone's name, so times from the sessions, jobs, pairings and team
// runs read alike and none is mistaken for another zone's.
func localTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05 MST")
}
