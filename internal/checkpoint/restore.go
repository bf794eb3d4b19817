package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/subdir"
	"github.com/hermes-go/hermes/internal/udiff"
)

// What a restore does to one file.
const (
	// Restore puts the file's content back as it was before the turn.
	Restore = "restore"
	// Remove deletes a file the turn created.
	Remove = "remove"
	// Unchanged leaves a file that already holds its content from before.
	Unchanged = "unchanged"
	// ChangedSince leaves a file someone changed after the turn, unless
	// forced.
	ChangedSince = "changed since"
	// Outside leaves a file outside the turn's working directory, unless
	// the caller showed it and says so.
	Outside = "outside the working directory"
	// NotKept is a file the checkpoint could not keep (too large).
	NotKept = "not kept"
)

// Change is what a restore does, or would do, to one file, with the diff
// from its content now to what it gets back.
type Change struct {
	File
	Action string
	Diff   string
}

// RestoreOptions say what a restore may do beyond the files the turn
// left as they are.
type RestoreOptions struct {
	// Force restores files changed since the turn too.
	Force bool
	// Outside restores files outside the turn's working directory too.
	Outside bool
	// DryRun plans without writing.
	DryRun bool
}

// Restore puts back, as they were before checkpoint id's turn, the files
// the turn changed, and returns what it did to each, in the turn's order.
// A file changed since the turn, or outside its working directory, is
// left alone unless opts allow it (see Change.Action); with DryRun
// nothing is written.
func (s *Store) Restore(id string, opts RestoreOptions) ([]Change, error) {
	cp, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	changes := make([]Change, 0, len(cp.Files))
	for _, f := range cp.Files {
		c, err := s.plan(cp, f, opts)
		if err != nil {
			return changes, err
		}
		if !opts.DryRun && (c.Action == Restore || c.Action == Remove) {
			if err := s.apply(c); err != nil {
				return changes, err
			}
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// plan decides what restoring f does.
func (s *Store) plan(cp Checkpoint, f File, opts RestoreOptions) (Change, error) {
	c := Change{File: f}
	if f.Skipped != "" {
		c.Action = NotKept
		return c, nil
	}
	now, exists, err := current(f.Path)
	if err != nil {
		return c, err
	}
	var before []byte
	if f.Before != "" {
		if before, err = s.get(f.Before); err != nil {
			return c, fmt.Errorf("checkpoint %s: the saved content of %s: %w", cp.ID, f.Path, err)
		}
	}
	c.Diff = udiff.Unified(strings.TrimPrefix(f.Path, "/"), string(now), string(before), 3)
	switch {
	case f.Before == "" && !exists, f.Before != "" && exists && bytes.Equal(now, before):
		c.Action = Unchanged
	case hashOf(now, exists) != f.After && !opts.Force:
		c.Action = ChangedSince
	case !inside(cp.Workdir, f.Path) && !opts.Outside:
		c.Action = Outside
	case f.Before == "":
		c.Action = Remove
	default:
		c.Action = Restore
	}
	return c, nil
}

// apply carries out a planned restore or removal.
func (s *Store) apply(c Change) error {
	if c.Action == Remove {
		if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", c.Path, err)
		}
		return nil
	}
	data, err := s.get(c.Before)
	if err != nil {
		return err
	}
	mode := fs.FileMode(c.Mode)
	if mode == 0 {
		mode = 0o644
	}
	if err := atomicfile.Write(c.Path, data, mode); err != nil {
		return fmt.Errorf("restore %s: %w", c.Path, err)
	}
	return nil
}

// current reads path now: its content, and whether it exists.
func current(path string) ([]byte, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// hashOf is the hash a file's content is kept under ("" for no file).
func hashOf(data []byte, exists bool) string {
	if !exists {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// inside reports whether path is within dir as written and also once
// links are resolved: a directory replaced by a link since the turn does
// not carry a restore outside the working directory.
func inside(dir, path string) bool {
	if !subdir.Within(dir, path) {
		return false
	}
	realDir, err1 := filepath.EvalSymlinks(dir)
	parent, err2 := filepath.EvalSymlinks(filepath.Dir(path))
	if err1 != nil || err2 != nil {
		// A parent that is gone is made again, under dir, by the restore.
		return err1 == nil || errors.Is(err2, fs.ErrNotExist)
	}
	return subdir.Within(realDir, filepath.Join(parent, filepath.Base(path)))
}
