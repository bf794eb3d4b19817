package cron

import "time"

// FireTime shows a fire time as people read it in messages and listings:
// in zone ("" is UTC; an unknown zone falls back to the machine's), to the
// minute, with the zone's abbreviation. The zero time is "-".
func FireTime(t time.Time, zone string) string {
	if t.IsZero() {
		return "-"
	}
	loc, err := LoadZone(zone, "")
	if err != nil {
		loc = time.Local
	}
	return t.In(loc).Format("2006-01-02 15:04 MST")
}
