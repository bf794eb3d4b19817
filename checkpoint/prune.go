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

// prune keeps the store within its bounds: turns older than Retention go,
// then the oldest beyond MaxSnapshots, then the oldest until the store is
// under MaxTotalBytes; the contents no turn names any more go with them.
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
	for {
		used, total := s.objects(keep)
		for h, p := range total {
			// A turn still going has saved contents no manifest names
			// yet; they are at most a day old (put touches a content it
			// finds stored).
			if info, err := os.Stat(p); !used[h] && err == nil && s.opts.Now().Sub(info.ModTime()) > inFlight {
				os.Remove(p)
			}
		}
		var size int64
		for h := range used {
			if info, err := os.Stat(s.object(h)); err == nil {
				size += info.Size()
			}
		}
		if size <= s.opts.MaxTotalBytes || len(keep) <= 1 {
			return nil
		}
		last := keep[len(keep)-1]
		os.Remove(filepath.Join(s.dir, "turns", last.ID+".json"))
		keep = keep[:len(keep)-1]
	}
}

// objects returns the hashes the checkpoints cps name, and every stored
// content by hash with its path.
func (s *Store) objects(cps []Checkpoint) (used map[string]bool, all map[string]string) {
	used = map[string]bool{}
	for _, cp := range cps {
		for _, f := range cp.Files {
			for _, h := range []string{f.Before, f.After} {
				if h != "" {
					used[h] = true
				}
			}
		}
	}
	all = map[string]string{}
	root := filepath.Join(s.dir, "objects")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			all[filepath.Dir(rel)+filepath.Base(rel)] = p
		}
		return nil
	})
	return used, all
}
