package resident

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Trim drops the read-only segments of the running executable (its code
// and constant data) from the process's resident set, and returns how
// many bytes of address space it advised. Writable segments are never
// touched: MADV_DONTNEED would discard what the program wrote there.
func Trim() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("resident: %w", err)
	}
	exe = strings.TrimSuffix(exe, " (deleted)")
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, fmt.Errorf("resident: %w", err)
	}
	var done int64
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		start, end, ok := readOnlyOf(sc.Text(), exe)
		if !ok {
			continue
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED); errno != 0 {
			return done, fmt.Errorf("resident: madvise %#x-%#x: %w", start, end, errno)
		}
		done += int64(end - start)
	}
	return done, sc.Err()
}

// readOnlyOf parses a line of /proc/self/maps and reports the range it
// maps when that is a private, unwritable mapping of the file exe.
func readOnlyOf(line, exe string) (start, end uintptr, ok bool) {
	// start-end perms offset dev inode path
	f := strings.Fields(line)
	if len(f) < 6 {
		return 0, 0, false
	}
	if path := strings.Join(f[5:], " "); path != exe && path != exe+" (deleted)" {
		return 0, 0, false
	}
	if perms := f[1]; len(perms) != 4 || perms[0] != 'r' || perms[1] != '-' || perms[3] != 'p' {
		return 0, 0, false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	if !found {
		return 0, 0, false
	}
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, false
	}
	return uintptr(s), uintptr(e), true
}
