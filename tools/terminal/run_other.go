//go:build !unix

package terminal

import (
	"context"
	"errors"
	"time"
)

// errUnsupported explains why the tool is off outside Unix: a timed-out
// command must be killed with everything it started, which needs process
// groups and sessions.
func errUnsupported() error {
	return errors.New("the local terminal needs Unix process groups to stop commands; this platform has none")
}

// Grace periods, as on Unix; nothing waits for them here.
const (
	killGrace  = 2 * time.Second
	drainGrace = 250 * time.Millisecond
)

// exitTimeout is the exit code reported for a command killed on timeout
// (the ssh backend runs here too).
const exitTimeout = 124

func platformSupported() error { return errUnsupported() }

// run never runs anything here; Available already reports why.
func (t *Terminal) run(ctx context.Context, command, dir string, timeout time.Duration) (runResult, error) {
	return runResult{}, errUnsupported()
}

// spawn never starts anything here; Available already reports why.
func (t *Terminal) spawn(command, dir string) (*bgProc, error) {
	return nil, errUnsupported()
}

func termGroup(pid int) {}
func killGroup(pid int) {}
