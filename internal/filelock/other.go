//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package filelock

import "os"

// Lock does nothing where flock is missing; callers say what two
// processes writing at once may lose.
func Lock(*os.File) error { return nil }
