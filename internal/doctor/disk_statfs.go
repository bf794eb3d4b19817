//go:build linux || darwin || freebsd

package doctor

import "syscall"

// diskFree returns the bytes free to an unprivileged user and the size of
// the filesystem holding dir.
func diskFree(dir string) (free, total uint64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), uint64(st.Blocks) * uint64(st.Bsize), nil
}
