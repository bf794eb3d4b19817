//go:build !unix

package terminal

import (
	"context"
	"errors"
	"os"
	"time"
)

// errUnsupported explains why the tool is off outside Unix: a timed-out
// command must be killed with everything it started, which needs process
// groups and sessions.
func errUnsupported() error {
	return errors.New("the local terminal needs Unix process groups to stop commands; this platform has none")
}

// Grace periods, as on Unix (a remote Backend runs here too).
const (
	KillGrace  = 2 * time.Second
	DrainGrace = 250 * time.Millisecond
)

// ExitTimeout is the exit code reported for a command killed on timeout
// (a remote Backend runs here too).
const ExitTimeout = 124

func platformSupported() error { return errUnsupported() }

// run never runs anything here; Available already reports why.
func (t *Terminal) run(ctx context.Context, command, dir string, timeout time.Duration) (RunResult, error) {
	return RunResult{}, errUnsupported()
}

// spawn never starts anything here; Available already reports why.
func (t *Terminal) spawn(command, dir string) (Spawned, error) {
	return Spawned{}, errUnsupported()
}

func termGroup(pid int) {}
func killGroup(pid int) {}

// makeFifo and openFifo have no named pipes here; no persistent shell
// starts.
func makeFifo(string) error                             { return errUnsupported() }
func openFifo(string) (out, keeper *os.File, err error) { return nil, nil, errUnsupported() }

// exitCode and terminate have no processes to read or stop here.
func exitCode(*os.ProcessState) int  { return -1 }
func terminate[T any](int, <-chan T) {}
