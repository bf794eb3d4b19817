package procgrouptest

import "time"

// pollExit reads /proc every few milliseconds until pid has ended or
// deadline passed, for kernels without pidfds.
func pollExit(pid int, deadline time.Time) bool {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for Alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}
