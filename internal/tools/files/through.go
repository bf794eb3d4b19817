package files

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/tool"
)

// readThrough reads the local text file abs, size bytes on disk, through
// the hooks' ReadText; ok is false when there is none, the file is over
// maxRemoteRead, or the read failed, and the caller reads the disk.
func readThrough(ctx context.Context, abs string, size int64) (string, bool) {
	read := hooksFrom(ctx).ReadText
	if read == nil || size > maxRemoteRead {
		return "", false
	}
	text, err := read(ctx, abs)
	if err != nil {
		return "", false
	}
	return text, true
}

// writeThrough is writeAtomic through the hooks' WriteText: a link is
// followed, the parent directories are created, and it reports whether
// the file was created.
func writeThrough(ctx context.Context, write func(context.Context, string, string) error, p string, data []byte) (created bool, err error) {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	switch fi, err := os.Stat(p); {
	case err == nil && fi.IsDir():
		return false, tool.Errorf(tool.CodeInvalidArguments, "%s is a directory; give a file path", p)
	case errors.Is(err, fs.ErrNotExist):
		created = true
	case err != nil:
		return false, statError(p, err)
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, writeError(dir, err)
	}
	if err := write(ctx, p, string(data)); err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, tool.Errorf(tool.CodeInternal, "the editor could not write %s: %v; read the file to see whether it changed, then try again or tell the user", p, err)
	}
	return created, nil
}
