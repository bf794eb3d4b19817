package logfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// Tail returns the last n lines of the log file at path, reaching into
// the newest rotated file when the current one holds fewer, and the
// offset in the current file they end at, from where a reader following
// the file goes on. A log that does not exist yet has no lines.
func Tail(path string, n int) ([]string, int64, error) {
	lines, end, err := lastLines(path, n)
	if err != nil {
		return nil, 0, err
	}
	if len(lines) < n {
		older, _, err := lastLines(path+".1", n-len(lines))
		if err != nil {
			return nil, 0, err
		}
		lines = append(older, lines...)
	}
	return lines, end, nil
}

// lastLines returns up to n last lines of one file, reading at most
// MaxSize bytes from its end, and the file's size as it read it.
func lastLines(path string, n int) ([]string, int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	from := max(st.Size()-MaxSize, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, from, st.Size()-from))
	if err != nil {
		return nil, 0, err
	}
	b = bytes.TrimRight(b, "\n")
	if len(b) == 0 || n <= 0 {
		return nil, st.Size(), nil
	}
	all := bytes.Split(b, []byte("\n"))
	if from > 0 && len(all) > 1 {
		all = all[1:] // the first line was cut
	}
	if len(all) > n {
		all = all[len(all)-n:]
	}
	lines := make([]string, len(all))
	for i, l := range all {
		lines[i] = string(l)
	}
	return lines, st.Size(), nil
}
