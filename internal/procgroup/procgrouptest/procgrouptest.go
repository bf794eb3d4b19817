// Package procgrouptest finds the processes of a process group and waits
// for processes to end, for tests that check nothing hermes started
// outlives it. It reads /proc, so it works on Linux only; elsewhere the
// tests that use it skip.
package procgrouptest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Members returns the live (not zombie) processes in process group pgid.
func Members(t testing.TB, pgid int) []int {
	t.Helper()
	paths := procStats(t)
	var pids []int
	for _, p := range paths {
		st, ok := readStat(p)
		if ok && st.pgrp == pgid && st.state != "Z" {
			pids = append(pids, st.pid)
		}
	}
	return pids
}

// Group returns the process group of pid, failing the test when pid is
// not running.
func Group(t testing.TB, pid int) int {
	t.Helper()
	st, ok := readStat(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if !ok {
		t.Fatalf("process %d is not running", pid)
	}
	return st.pgrp
}

// Alive reports whether pid is a live (not zombie) process.
func Alive(pid int) bool {
	st, ok := readStat(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return ok && st.state != "Z"
}

// WaitGone waits until every process in pids has ended and fails the
// test, naming those still running, if some have not within limit. The
// limit only bounds a failure: processes are watched as they end, through
// pidfds where the kernel has them.
func WaitGone(t testing.TB, pids []int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for _, pid := range pids {
		if !waitExit(pid, deadline) {
			var left []int
			for _, p := range pids {
				if Alive(p) {
					left = append(left, p)
				}
			}
			t.Fatalf("processes %v still running %s after they should have been killed: %s", left, limit, describe(left))
		}
	}
}

// describe lists the command lines of pids, for a failure message.
func describe(pids []int) string {
	var parts []string
	for _, pid := range pids {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		parts = append(parts, strconv.Itoa(pid)+": "+strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " "))
	}
	return strings.Join(parts, "; ")
}

// stat is what Members needs of /proc/PID/stat.
type stat struct {
	pid, pgrp int
	state     string
}

// readStat parses a /proc/PID/stat file: "pid (comm) state ppid pgrp ...",
// where comm may hold spaces and parentheses, so the fields are counted
// from the last ')'.
func readStat(path string) (stat, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return stat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return stat{}, false
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(s[:strings.IndexByte(s, ' ')]))
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return stat{}, false
	}
	return stat{pid: pid, pgrp: pgrp, state: f[0]}, true
}

// procStats lists /proc/PID/stat of every process, skipping the test
// where there is no /proc.
func procStats(t testing.TB) []string {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to list processes with")
	}
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	return paths
}
