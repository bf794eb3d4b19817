package skill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// The archive is DIR/.archive: retired skills are moved there whole, never
// deleted, out of the walk (a hidden folder) and so out of the index. Its
// record, DIR/.curator/archive.json, says where each came from and which
// merge retired it, so hermes skills restore can put everything back.
const (
	archiveDir  = ".archive"
	archiveName = "archive.json"
)

// Why a skill was archived.
const (
	ReasonUnused      = "unused"
	ReasonMerged      = "merged"
	ReasonMergeUndone = "merge undone"
)

// Archived is one skill in the archive.
type Archived struct {
	Name string `json:"name"`
	// Dir is its folder's name under DIR/.archive: the skill's name, with
	// "~2", "~3" … when an earlier skill of that name is archived too.
	Dir string `json:"dir"`
	// Category is the folder it was in, relative to DIR ("" for the top).
	Category string    `json:"category,omitempty"`
	At       time.Time `json:"archived_at"`
	Reason   string    `json:"reason"`
	// Merge is the id of the merge that retired it, if one did.
	Merge string `json:"merge,omitempty"`
	// Usage is its usage record when it was archived, given back on
	// restore.
	Usage Usage `json:"usage"`
}

// Merge records skills the curator merged into one.
type Merge struct {
	ID       string    `json:"id"`
	Into     string    `json:"into"`
	Category string    `json:"category,omitempty"`
	Sources  []string  `json:"sources"`
	At       time.Time `json:"merged_at"`
	// Hash is the SHA-256 of the merged SKILL.md as written.
	Hash string `json:"hash"`
}

// archiveIndex is the content of archive.json.
type archiveIndex struct {
	Skills []Archived `json:"skills"`
	Merges []Merge    `json:"merges"`
}

// ArchiveDir is the folder archived skills are moved to.
func (l *Library) ArchiveDir() string { return filepath.Join(l.opts.Dir, archiveDir) }

// Archived lists the archived skills, oldest first, and the merges that
// can still be undone.
func (l *Library) Archived() ([]Archived, []Merge, error) {
	if l.opts.Dir == "" {
		return nil, nil, nil
	}
	idx, err := l.readArchive()
	return idx.Skills, idx.Merges, err
}

// Archive moves a skill of the skills directory to the archive, with its
// usage record, for reason.
func (l *Library) Archive(name, reason string) (Archived, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	sk, err := l.local(name)
	if err != nil {
		return Archived{}, err
	}
	return l.archiveLocked(sk, reason, "")
}

// archiveLocked moves sk into the archive; the caller holds writeMu. The
// folder is moved first and recorded after, so a crash between the two
// leaves the skill in the archive, where Restore still finds it by name.
func (l *Library) archiveLocked(sk *Skill, reason, merge string) (Archived, error) {
	unlock, err := l.lockRecords()
	if err != nil {
		return Archived{}, err
	}
	defer unlock()
	defer l.invalidate()
	idx, err := l.readArchive()
	if err != nil {
		return Archived{}, err
	}
	recs, err := readUsage(filepath.Join(l.opts.Dir, curatorDir, usageName))
	if err != nil {
		return Archived{}, err
	}
	if err := os.MkdirAll(l.ArchiveDir(), 0o755); err != nil {
		return Archived{}, err
	}
	dir := sk.Name
	for n := 2; exists(filepath.Join(l.ArchiveDir(), dir)); n++ {
		dir = sk.Name + "~" + strconv.Itoa(n)
	}
	category, _ := filepath.Rel(l.opts.Dir, filepath.Dir(sk.Dir))
	if category == "." {
		category = ""
	}
	if err := os.Rename(sk.Dir, filepath.Join(l.ArchiveDir(), dir)); err != nil {
		return Archived{}, fmt.Errorf("archive skill %q: %w", sk.Name, err)
	}
	a := Archived{Name: sk.Name, Dir: dir, Category: filepath.ToSlash(category), At: l.opts.Clock.Now().UTC(),
		Reason: reason, Merge: merge, Usage: recs[sk.Name]}
	idx.Skills = append(idx.Skills, a)
	delete(recs, sk.Name)
	if err := l.writeArchive(idx); err != nil {
		return a, err
	}
	return a, writeJSON(filepath.Join(l.opts.Dir, curatorDir, usageName), usageFile{Skills: recs})
}

// ExpireArchive deletes, for good, the archived skills archived before
// cutoff (curator.archive_ttl_days), with the merges left with nothing to
// undo; dry lists them without deleting.
func (l *Library) ExpireArchive(cutoff time.Time, dry bool) ([]Archived, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	unlock, err := l.lockRecords()
	if err != nil {
		return nil, err
	}
	defer unlock()
	idx, err := l.readArchive()
	if err != nil {
		return nil, err
	}
	var gone []Archived
	var errs []error
	keep := idx.Skills[:0:0]
	for _, a := range idx.Skills {
		if !a.At.Before(cutoff) {
			keep = append(keep, a)
			continue
		}
		gone = append(gone, a)
		if dry {
			continue
		}
		if err := os.RemoveAll(filepath.Join(l.ArchiveDir(), a.Dir)); err != nil {
			errs = append(errs, err)
			keep = append(keep, a)
		}
	}
	if dry || len(gone) == 0 {
		return gone, errors.Join(errs...)
	}
	idx.Skills = keep
	idx.Merges = slices.DeleteFunc(idx.Merges, func(m Merge) bool {
		return !slices.ContainsFunc(keep, func(a Archived) bool { return a.Merge == m.ID })
	})
	return gone, errors.Join(append(errs, l.writeArchive(idx))...)
}

func (l *Library) readArchive() (archiveIndex, error) {
	var idx archiveIndex
	err := readJSON(filepath.Join(l.opts.Dir, curatorDir, archiveName), &idx)
	return idx, err
}

func (l *Library) writeArchive(idx archiveIndex) error {
	return writeJSON(filepath.Join(l.opts.Dir, curatorDir, archiveName), idx)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
