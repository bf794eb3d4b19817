// Package holder names the hermes process that holds a lease, "host/pid"
// (a session's turn, the scheduler, a team run, a held message), and
// tells when such a process is known to be gone: on this host, a process
// that no longer exists. A lease of a gone process is taken over at once
// rather than when it expires; one of another host, or of a name of
// another form, is left to expire.
package holder

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// This is the holder name of the running process.
func This() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}

// Gone reports whether holder names a process of this host that no
// longer exists. This process is never gone.
func Gone(holder string) bool {
	host, _ := os.Hostname()
	h, p, ok := strings.Cut(holder, "/")
	if !ok || h != host {
		return false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return exited(pid)
}
