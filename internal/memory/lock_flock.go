//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package memory

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, waiting for other holders. The
// lock belongs to the open file, so two hermes processes (a gateway and a
// CLI) and two Stores in one process exclude each other alike; it is
// released when f is closed, even if the process dies.
func lockFile(f *os.File) error {
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
