// Package proc reads what the bench programs report about a running
// hermes from /proc: its memory, split into what the process allocated
// and what it maps from files (mostly the binary's own pages, shared with
// the page cache), and the CPU time it has used. Linux only.
package proc

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Memory is a process's resident memory in MB, from /proc/PID/status.
type Memory struct {
	// RSS is VmRSS, everything resident.
	RSS float64
	// Anon is RssAnon: the heap, stacks and the runtime's own mappings.
	Anon float64
	// File is RssFile: pages mapped from files, the binary's text and
	// read-only data above all.
	File float64
}

// ReadMemory reads the resident memory of the process pid.
func ReadMemory(pid int) (Memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	for _, line := range strings.Split(string(data), "\n") {
		var key string
		var kb float64
		if _, err := fmt.Sscanf(line, "%s %f kB", &key, &kb); err != nil {
			continue
		}
		switch key {
		case "VmRSS:":
			m.RSS = kb / 1024
		case "RssAnon:":
			m.Anon = kb / 1024
		case "RssFile:":
			m.File = kb / 1024
		}
	}
	return m, nil
}

// CPU returns the CPU time the process pid has used, user and system,
// from /proc/PID/stat (in USER_HZ ticks, 100 a second on Linux), which
// counts threads that have ended too.
func CPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's closing parenthesis, starting with
	// the state (field 3); utime and stime are fields 14 and 15.
	_, rest, ok := strings.Cut(string(data), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q has too few fields", pid, data)
	}
	var utime, stime int64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q: %w", pid, f[11], err)
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: stime %q: %w", pid, f[12], err)
	}
	return time.Duration(utime+stime) * (time.Second / 100), nil
}
