// Package memory is hermes's built-in memory: two small files the agent
// curates across sessions, MEMORY.md (its own notes: environment facts,
// conventions, lessons learned) and USER.md (what it knows about the
// user), and the "memory" tool that edits them.
//
// The files live in $HERMES_HOME/memories and use Hermes Agent's format
// (entries separated by a "§" line), so a Hermes user's ~/.hermes/memories
// works as it is. Each file has a character limit that keeps it small
// enough to sit in every system prompt; the agent consolidates entries
// rather than letting the files grow.
package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hermes-go/hermes/internal/filelock"
)

// Target names one of the two files.
type Target string

// The two targets of the memory tool.
const (
	TargetMemory Target = "memory"
	TargetUser   Target = "user"
)

// File names inside the memories directory, as Hermes Agent names them.
const (
	MemoryFile = "MEMORY.md"
	UserFile   = "USER.md"
	lockName   = ".lock"
)

// Default limits in characters (runes, delimiters included): about 800 and
// 500 tokens, Hermes Agent's sizes.
const (
	DefaultMemoryLimit = 2200
	DefaultUserLimit   = 1375
)

// Limits caps the size of each file in characters; zero means the
// default. MemoryOff and UserOff turn a file off (Hermes Agent's
// memory.memory_enabled and memory.user_profile_enabled set to false):
// it is left out of the prompt, and the memory tool does not write it.
type Limits struct {
	Memory int
	User   int

	MemoryOff, UserOff bool
}

// Store reads and writes the memory files of one directory. It is safe for
// concurrent use, and several Stores (in one process or several) may share
// a directory: every write locks DIR/.lock and re-reads the files, so no
// writer loses another's entries.
type Store struct {
	dir    string
	limits Limits
	// mu serializes this Store's writes where flock is unavailable and
	// spares goroutines a trip through the kernel lock.
	mu sync.Mutex
}

// Open returns a Store for dir (normally $HERMES_HOME/memories). Nothing is
// touched until the first read or write; the directory is created, mode
// 0700, by the first write.
func Open(dir string, limits Limits) *Store {
	if limits.Memory <= 0 {
		limits.Memory = DefaultMemoryLimit
	}
	if limits.User <= 0 {
		limits.User = DefaultUserLimit
	}
	return &Store{dir: dir, limits: limits}
}

// Dir is the directory the Store reads and writes.
func (s *Store) Dir() string { return s.dir }

// Limit is the character limit of target.
func (s *Store) Limit(t Target) int {
	if t == TargetUser {
		return s.limits.User
	}
	return s.limits.Memory
}

// Path is the file that holds target.
func (s *Store) Path(t Target) string {
	if t == TargetUser {
		return filepath.Join(s.dir, UserFile)
	}
	return filepath.Join(s.dir, MemoryFile)
}

// Off reports whether target is turned off.
func (s *Store) Off(t Target) bool {
	if t == TargetUser {
		return s.limits.UserOff
	}
	return s.limits.MemoryOff
}

// Snapshot reads both files now; a file turned off reads as no entries. A missing directory or file reads as no
// entries. The returned slices belong to the caller; later writes do not
// change them.
func (s *Store) Snapshot() (Snapshot, error) {
	mem, err := s.read(TargetMemory)
	if err != nil {
		return Snapshot{}, err
	}
	user, err := s.read(TargetUser)
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Memory: mem, User: user, MemoryLimit: s.limits.Memory, UserLimit: s.limits.User}, nil
}

// read returns target's entries. Writers replace files by rename, so a
// read without the lock sees either the old or the new file, never half.
func (s *Store) read(t Target) ([]string, error) {
	if s.Off(t) {
		return nil, nil
	}
	data, err := os.ReadFile(s.Path(t))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read memory file: %w", err)
	}
	return parse(string(data)), nil
}

// state is both files' entries during an update.
type state map[Target][]string

// update runs fn on the current entries under the directory lock and
// writes every file whose entries fn changed, reporting whether it wrote
// any. fn edits the state in place; if it returns an error nothing is
// written.
func (s *Store) update(fn func(st state) error) (written bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return false, fmt.Errorf("create memory directory: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(s.dir, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return false, fmt.Errorf("open memory lock: %w", err)
	}
	defer lock.Close() // releases the flock
	// Without flock (not a Unix) writes of one Store are still
	// serialized by its mutex, but two processes may race.
	if err := filelock.Lock(lock); err != nil {
		return false, err
	}

	before := state{}
	for _, t := range []Target{TargetMemory, TargetUser} {
		if before[t], err = s.read(t); err != nil {
			return false, err
		}
	}
	st := state{TargetMemory: slices.Clone(before[TargetMemory]), TargetUser: slices.Clone(before[TargetUser])}
	if err := fn(st); err != nil {
		return false, err
	}
	for _, t := range []Target{TargetMemory, TargetUser} {
		if !slices.Equal(before[t], st[t]) {
			if err := writeAtomic(s.Path(t), format(st[t])); err != nil {
				return written, err
			}
			written = true
		}
	}
	return written, nil
}

// writeAtomic replaces path with data: a temporary file in the same
// directory is written, synced and renamed over path, and the directory
// is synced, so a crash leaves the old file or the new one. The file has
// mode 0600: memories may describe the user.
func writeAtomic(path, data string) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this fails harmlessly
	if _, err := tmp.WriteString(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every platform can sync a directory
		d.Close()
	}
	return nil
}
