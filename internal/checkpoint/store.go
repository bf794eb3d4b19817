package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/atomicfile"
)

// Store is the shadow store of one hermes home. Its methods are safe for
// concurrent use; turns of several processes may share it (objects are
// written once under their hash, manifests under ids of their own).
type Store struct {
	dir  string
	opts Options
	// mu guards swept, when prune last swept the stored contents.
	mu    sync.Mutex
	swept time.Time
}

// Open returns the store under dir ($HERMES_HOME/checkpoints); nothing is
// created until a turn changes a file.
func Open(dir string, opts Options) *Store {
	return &Store{dir: dir, opts: opts.defaults()}
}

// Turn collects the files one turn changes. Before is called by the file
// tools before each write; Commit ends the turn.
type Turn struct {
	s       *Store
	session string
	workdir string
	mu      sync.Mutex
	files   map[string]*File
	order   []string
	err     error
}

// Begin starts collecting a turn of session working in workdir.
func (s *Store) Begin(session, workdir string) *Turn {
	return &Turn{s: s, session: session, workdir: workdir, files: map[string]*File{}}
}

// Before saves what path holds, the first time the turn is about to
// change it; later calls for the same path do nothing. A file too large
// is recorded as skipped; a failure to save is returned, so the tool does
// not change a file it could not keep.
func (t *Turn) Before(path string) error {
	path = filepath.Clean(path)
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.files[path]; ok {
		return nil
	}
	f := &File{Path: path}
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("checkpoint %s: %w", path, err)
	case !info.Mode().IsRegular():
		f.Skipped = "not a regular file"
	case info.Size() > t.s.opts.MaxFileBytes:
		f.Skipped = fmt.Sprintf("%d bytes, over the %d a checkpoint keeps", info.Size(), t.s.opts.MaxFileBytes)
	default:
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", path, err)
		}
		if f.Before, err = t.s.put(data); err != nil {
			return fmt.Errorf("checkpoint %s: %w", path, err)
		}
		f.Mode = uint32(info.Mode().Perm())
	}
	t.files[path] = f
	t.order = append(t.order, path)
	return nil
}

// Commit records the turn: the hash of each file's content now, as its
// "after", and the manifest, then prunes the store. A turn that changed nothing leaves
// nothing. It returns the checkpoint's id ("" for none).
func (t *Turn) Commit() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.order) == 0 {
		return "", nil
	}
	now := t.s.opts.Now()
	cp := Checkpoint{Session: t.session, Workdir: t.workdir, Created: now.UTC()}
	for _, p := range t.order {
		f := *t.files[p]
		if f.Skipped == "" {
			// Only the hash of what the turn left: a restore compares it
			// with the file then, to leave alone a file changed since.
			if data, err := os.ReadFile(p); err == nil {
				f.After = hashOf(data, true)
			}
		}
		cp.Files = append(cp.Files, f)
	}
	cp.ID = newID(now, t.session)
	data, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return "", err
	}
	if err := atomicfile.Write(filepath.Join(t.s.dir, "turns", cp.ID+".json"), data, 0o600); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	return cp.ID, t.s.prune()
}

// newID names a checkpoint by its time and session, sortable by time.
func newID(t time.Time, session string) string {
	s := session
	if len(s) > 6 {
		s = s[len(s)-6:]
	}
	return t.Format("20060102_150405.000000") + "_" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// put stores data under its SHA-256, once, and returns the hash.
func (s *Store) put(data []byte) (string, error) {
	h := hashOf(data, true)
	p := s.object(h)
	if _, err := os.Stat(p); err == nil {
		now := s.opts.Now()
		return h, os.Chtimes(p, now, now) // see prune
	}
	return h, atomicfile.Write(p, data, 0o600)
}

// object is where the content of hash h is kept.
func (s *Store) object(h string) string { return filepath.Join(s.dir, "objects", h[:2], h[2:]) }

// get reads the content of hash h.
func (s *Store) get(h string) ([]byte, error) { return os.ReadFile(s.object(h)) }

// List returns the checkpoints, newest first.
func (s *Store) List() ([]Checkpoint, error) {
	paths, _ := filepath.Glob(filepath.Join(s.dir, "turns", "*.json"))
	out := make([]Checkpoint, 0, len(paths))
	for _, p := range paths {
		cp, err := readManifest(p)
		if err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// Get returns the checkpoint id, or ErrNotFound.
func (s *Store) Get(id string) (Checkpoint, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.Contains(id, "..") {
		return Checkpoint{}, fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	cp, err := readManifest(filepath.Join(s.dir, "turns", id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return Checkpoint{}, fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	return cp, err
}

func readManifest(p string) (Checkpoint, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return Checkpoint{}, err
	}
	var cp Checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %s: %w", p, err)
	}
	return cp, nil
}
