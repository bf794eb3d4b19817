//go:build linux

package main

import (
	"os"
	"syscall"
)

// fadvDontNeed is POSIX_FADV_DONTNEED on Linux.
const fadvDontNeed = 4

// evict drops the binary's pages from the page cache, so that the next
// start reads it from disk as after a reboot. How the cache was filled
// shows in serve's RssFile: a binary the linker has just written maps up
// to 3 MB more of its own pages than the same binary read from disk, for
// the same code run, which would make the idle figure depend on when the
// binary was built rather than on hermes.
func evict(bin string) error {
	f, err := os.Open(bin)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, fadvDontNeed, 0, 0); errno != 0 {
		return &os.PathError{Op: "fadvise", Path: bin, Err: errno}
	}
	return nil
}
