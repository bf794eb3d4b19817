//go:build unix

package holder

import (
	"errors"
	"syscall"
)

// exited reports whether no process pid exists.
func exited(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
