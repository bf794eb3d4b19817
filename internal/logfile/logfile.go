// Package logfile is hermes's log file: $HERMES_HOME/logs/hermes.log,
// readable by its owner only, rotated by size so it never fills the disk.
// An interactive chat writes its log here instead of over the prompt, and
// `hermes logs` and /logs read it back.
package logfile

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

const (
	// Name is the log file's name in its directory.
	Name = "hermes.log"
	// MaxSize is the size past which the file is rotated.
	MaxSize = 5 << 20
	// Keep is how many rotated files are kept besides the current one
	// (hermes.log.1 is the newest).
	Keep = 4
)

// Path is the log file of the hermes home home.
func Path(home string) string { return filepath.Join(home, "logs", Name) }

// Writer appends to a log file and rotates it once a write would take it
// past its maximum size. It is safe for concurrent use; several
// processes may append to one file, and each rotates what it finds.
type Writer struct {
	path    string
	maxSize int64
	keep    int

	mu   sync.Mutex
	f    *os.File
	size int64
}

// Open opens (creating them: the directory 0700, the file 0600) the log
// file at path, rotated past maxSize bytes with keep older files kept.
func Open(path string, maxSize int64, keep int) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	w := &Writer{path: path, maxSize: maxSize, keep: keep}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Writer) open() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	// A file made before, by hand or by an older hermes, is narrowed too:
	// logs name sessions, paths and commands.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("log file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("log file: %w", err)
	}
	w.f, w.size = f, st.Size()
	return nil
}

// Write appends p, rotating the file first when p would take it past the
// maximum size.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return 0, os.ErrClosed
	}
	if w.size > 0 && w.size+int64(len(p)) > w.maxSize {
		if err := w.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := w.f.Write(p)
	w.size += int64(n)
	return n, err
}

// rotate moves hermes.log to hermes.log.1 (and each older one a number
// up, the oldest dropped) and starts an empty file.
func (w *Writer) rotate() error {
	w.f.Close()
	w.f = nil
	os.Remove(fmt.Sprintf("%s.%d", w.path, w.keep))
	for i := w.keep - 1; i >= 1; i-- {
		os.Rename(fmt.Sprintf("%s.%d", w.path, i), fmt.Sprintf("%s.%d", w.path, i+1))
	}
	if w.keep > 0 {
		os.Rename(w.path, w.path+".1")
	} else {
		os.Remove(w.path)
	}
	return w.open()
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
