//go:build !(linux || darwin || freebsd)

package doctor

import "errors"

// diskFree is not measured on this system.
func diskFree(string) (free, total uint64, err error) {
	return 0, 0, errors.New("not measured on this system")
}
