//go:build unix

package gateway

import (
	"os"
	"syscall"
)

// openAttachment opens a file to attach without following a link that
// replaced it since it was checked, and without waiting for a writer
// when it is a FIFO (the check that follows refuses it).
func openAttachment(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// links is how many names (hard links) the file has.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
