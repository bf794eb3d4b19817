package checkpoint

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// inFlight is how long a content no checkpoint names is kept, for the
// turns still going that saved it.
const inFlight = 24 * time.Hour

// sweepEvery is how often prune looks through the stored contents for
// ones no checkpoint names: a walk of the whole store, not for every turn.
const sweepEvery = time.Hour

// prune keeps the store within its bounds: turns older than Retention go,
// then the oldest beyond MaxSnapshots, then the oldest until the contents
// the rest name are under MaxTotalBytes; the contents no turn names any
// more go with them, at the next sweep.
func (s *Store) prune() error {
	cps, err := s.List() // newest first
	if err != nil {
		return err
	}
	cutoff := s.opts.Now().Add(-s.opts.Retention)
	keep := cps[:0:0]
	for i, cp := range cps {
		if i < s.opts.MaxSnapshots && cp.Created.After(cutoff) {
			keep = append(keep, cp)
			continue
		}
		os.Remove(filepath.Join(s.dir, "turns", cp.ID+".json"))
	}
	for len(keep) > 1 && s.size(keep) > s.opts.MaxTotalBytes {
		last := keep[len(keep)-1]
		os.Remove(filepath.Join(s.dir, "turns", last.ID+".json"))
		keep = keep[:len(keep)-1]
	}
	s.mu.Lock()
	due := s.opts.Now().Sub(s.swept) >= sweepEvery
	if due {
		s.swept = s.opts.Now()
	}
	s.mu.Unlock()
	if due {
		s.sweep(used(keep))
	}
	return nil
}

// size is the bytes of the contents cps name.
func (s *Store) size(cps []Checkpoint) int64 {
	var n int64
	for h := range used(cps) {
		if info, err := os.Stat(s.object(h)); err == nil {
			n += info.Size()
		}
	}
	return n
}

// used is the set of contents cps name.
func used(cps []Checkpoint) map[string]bool {
	u := map[string]bool{}
	for _, cp := range cps {
		for _, f := range cp.Files {
			if f.Before != "" {
				u[f.Before] = true
			}
		}
	}
	return u
}

// sweep deletes the stored contents not in keep. A turn still going has
// saved contents no manifest names yet; they are at most a day old (put
// touches a content it finds stored), so younger ones stay.
func (s *Store) sweep(keep map[string]bool) {
	root := filepath.Join(s.dir, "objects")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		h := filepath.Dir(rel) + filepath.Base(rel)
		if info, err := d.Info(); err == nil && !keep[h] && s.opts.Now().Sub(info.ModTime()) > inFlight {
			os.Remove(p)
		}
		return nil
	})
}
