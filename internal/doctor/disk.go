package doctor

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Thresholds of free space under the home: below either, state.db and
// the logs may soon fail to grow.
const (
	lowFreeBytes   = 1 << 30
	lowFreePercent = 5
	// fullFreeBytes is so little that writes are about to fail.
	fullFreeBytes = 100 << 20
)

// DiskSpace checks the free space of the filesystem holding home (or
// its nearest existing parent, before the first run).
func DiskSpace(home string) Check {
	return Check{Name: "disk", Run: func(context.Context) []Result {
		const name = "disk"
		dir := existingParent(home)
		free, total, err := diskFree(dir)
		if err != nil {
			return []Result{Problem(name, Warn, "df -h "+ShellQuote(dir), "free space under %s is unknown: %v", dir, err)}
		}
		pct := 100.0
		if total > 0 {
			pct = float64(free) * 100 / float64(total)
		}
		fix := "du -sh " + ShellQuote(home) + "/* | sort -h"
		switch {
		case free < fullFreeBytes:
			return []Result{Problem(name, Fail, fix, "%s free under %s (%.1f%%): writes to state.db are about to fail", sizeText(int64(free)), dir, pct)}
		case free < lowFreeBytes || pct < lowFreePercent:
			return []Result{Problem(name, Warn, fix, "only %s free under %s (%.1f%%)", sizeText(int64(free)), dir, pct)}
		}
		return []Result{Okf(name, "%s free under %s (%.0f%%)", sizeText(int64(free)), dir, pct)}
	}}
}

// existingParent is dir, or its nearest parent that exists.
func existingParent(dir string) string {
	for {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}
