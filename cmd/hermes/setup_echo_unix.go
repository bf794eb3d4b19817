//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "golang.org/x/sys/unix"

// termiosEchoOff clears ECHO on fd with the platform's get and set
// requests. Echo goes off before the prompt is printed, so that nothing
// typed once the prompt shows can reach the screen.
func termiosEchoOff(fd int, get, set uint) (func(), error) {
	old, err := unix.IoctlGetTermios(fd, get)
	if err != nil {
		return nil, err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, set, &quiet); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, set, old) }, nil
}
