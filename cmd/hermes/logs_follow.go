package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// followPoll is how often `hermes logs -f` looks for new lines.
const followPoll = 250 * time.Millisecond

// followLog prints the lines appended to the log file at path after
// offset from, shown as printLog shows them, until ctx ends. A file
// rotated or truncated meanwhile is read again from its start.
func followLog(ctx context.Context, out io.Writer, path string, from int64, r interface{ Redact(string) string }) error {
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	var rd *bufio.Reader
	var offset int64
	open := func(at int64) error {
		if f != nil {
			f.Close()
			f = nil
		}
		nf, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := nf.Seek(at, io.SeekStart); err != nil {
			nf.Close()
			return err
		}
		f, rd, offset = nf, bufio.NewReader(nf), at
		return nil
	}
	if err := open(from); err != nil {
		return fmt.Errorf("following %s: %w", path, err)
	}
	tick := time.NewTicker(followPoll)
	defer tick.Stop()
	var partial []byte
	for {
		if f != nil {
			for {
				line, err := rd.ReadBytes('\n')
				offset += int64(len(line))
				partial = append(partial, line...)
				if err != nil {
					break
				}
				fmt.Fprintln(out, showLogLine(string(partial[:len(partial)-1]), r))
				partial = partial[:0]
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		cur, err := os.Stat(path)
		var held os.FileInfo
		if f != nil {
			held, _ = f.Stat()
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("following %s: %w", path, err)
		case f == nil || !os.SameFile(cur, held) || cur.Size() < offset:
			partial = partial[:0]
			if err := open(0); err != nil {
				return fmt.Errorf("following %s: %w", path, err)
			}
		}
	}
}
