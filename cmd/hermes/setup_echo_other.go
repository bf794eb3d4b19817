//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package main

import "errors"

// echoOff is not available here: a key typed at the prompt would show, so
// setup asks for it through --api-key-env instead.
func echoOff(int) (func(), error) {
	return nil, errors.New("cannot turn off the terminal's echo on this system")
}
