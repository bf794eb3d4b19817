//go:build unix

package engine

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processGone reports whether holder ("host/pid") names a process on this
// host (named host) that no longer exists: its lease can be taken over at
// once rather than when it expires. Anything else, a holder on another
// host or a name of another form, is taken to be alive.
func processGone(holder, host string) bool {
	h, p, ok := strings.Cut(holder, "/")
	if !ok || h != host {
		return false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
