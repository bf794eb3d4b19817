//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package filelock

import (
	"fmt"
	"os"
	"syscall"
)

// Lock takes an exclusive flock on f, waiting for other holders. The
// lock belongs to the open file, so two hermes processes (a gateway and
// a CLI) and two users of one file in one process exclude each other
// alike; closing f, or the process dying, releases it.
func Lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		return nil
	}
}
