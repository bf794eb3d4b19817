//go:build !linux

package procgrouptest

import "time"

// waitExit waits until pid has ended or deadline passed, reading /proc
// again every few milliseconds.
func waitExit(pid int, deadline time.Time) bool { return pollExit(pid, deadline) }
