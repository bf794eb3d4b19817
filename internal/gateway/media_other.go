//go:build !unix

package gateway

import "os"

// openAttachment opens a file to attach.
func openAttachment(path string) (*os.File, error) { return os.Open(path) }

// links is how many names the file has, which only Unix tells here.
func links(os.FileInfo) uint64 { return 1 }
