//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package skill

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, waiting for other holders. The
// lock belongs to the open file, so two processes and two Libraries in one
// process exclude each other alike; closing f, or the process dying,
// releases it.
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
