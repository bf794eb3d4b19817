//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "golang.org/x/sys/unix"

// echoOff turns off the echo of the terminal fd, keeping line editing and
// Ctrl-C, and returns the function that turns it back on.
func echoOff(fd int) (restore func(), err error) {
	return termiosEchoOff(fd, unix.TIOCGETA, unix.TIOCSETA)
}
