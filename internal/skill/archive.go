package skill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
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

// Restored says what Restore brought back.
type Restored struct {
	// Skills are the skills moved back into the skills directory.
	Skills []string
	// Undone is the merge undone, when the name was a merge's; its
	// merged skill was moved to the archive.
	Undone *Merge
}

// Restore brings an archived skill back to where it was. When the name is
// that of a merged skill, or of a skill a merge retired, the merge is
// undone: the merged skill goes to the archive and every skill it
// replaced comes back, as it was. A skill of the same name in the way is
// an error, and nothing moves.
func (l *Library) Restore(name string) (Restored, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.writable(); err != nil {
		return Restored{}, err
	}
	idx, err := l.readArchive()
	if err != nil {
		return Restored{}, err
	}
	// The latest thing done to the name is undone: the last archiving of
	// a skill of that name, or a later merge into that name.
	var entry *Archived
	for i := len(idx.Skills) - 1; i >= 0 && entry == nil; i-- {
		if idx.Skills[i].Name == name {
			entry = &idx.Skills[i]
		}
	}
	var merge *Merge
	for i := len(idx.Merges) - 1; i >= 0 && merge == nil; i-- {
		m := idx.Merges[i]
		switch {
		case entry != nil && entry.Merge != "":
			if m.ID == entry.Merge {
				merge = &m
			}
		case m.Into == name && (entry == nil || !m.At.Before(entry.At)):
			merge = &m
		}
	}
	switch {
	case merge != nil:
		return l.undoMerge(*merge)
	case entry != nil:
		if err := l.restoreEntry(*entry); err != nil {
			return Restored{}, err
		}
		return Restored{Skills: []string{name}}, nil
	}
	if exists(filepath.Join(l.ArchiveDir(), name, FileName)) {
		// Moved but not recorded (a crash in between): it goes back to
		// the top of the skills directory.
		if err := l.restoreEntry(Archived{Name: name, Dir: name}); err != nil {
			return Restored{}, err
		}
		return Restored{Skills: []string{name}}, nil
	}
	return Restored{}, tool.Errorf(tool.CodeNotFound, "no archived skill or merge named %q; hermes skills archive lists them", name)
}

// undoMerge archives the merged skill, if it is still there, and restores
// the skills the merge retired.
func (l *Library) undoMerge(m Merge) (Restored, error) {
	idx, err := l.readArchive()
	if err != nil {
		return Restored{}, err
	}
	var sources []Archived
	for _, a := range idx.Skills {
		if a.Merge == m.ID {
			sources = append(sources, a)
		}
	}
	merged, mergedThere := l.Get(m.Into)
	for _, a := range sources {
		if sk, ok := l.Get(a.Name); ok && !(mergedThere && a.Name == m.Into) {
			return Restored{}, tool.Errorf(tool.CodeInvalidArguments, "cannot undo the merge into %q: skill %q is in the way at %s; remove or rename it first", m.Into, a.Name, sk.Dir)
		}
	}
	if mergedThere && !merged.External {
		if _, err := l.archiveLocked(merged, ReasonMergeUndone, ""); err != nil {
			return Restored{}, err
		}
	}
	out := Restored{Undone: &m}
	for _, a := range sources {
		if err := l.restoreEntry(a); err != nil {
			return out, err
		}
		out.Skills = append(out.Skills, a.Name)
	}
	return out, l.dropMerge(m.ID)
}

// restoreEntry moves one archived skill back and gives it its usage
// record, restored now: a skill brought back is not retired again at the
// next run.
func (l *Library) restoreEntry(a Archived) error {
	if sk, ok := l.Get(a.Name); ok {
		return tool.Errorf(tool.CodeInvalidArguments, "skill %q already exists at %s; remove or rename it before restoring the archived one", a.Name, sk.Dir)
	}
	target := filepath.Join(l.opts.Dir, filepath.FromSlash(a.Category), a.Name)
	if exists(target) {
		return tool.Errorf(tool.CodeInvalidArguments, "%s already exists; move it away before restoring skill %q", target, a.Name)
	}
	unlock, err := l.lockRecords()
	if err != nil {
		return err
	}
	defer unlock()
	defer l.invalidate()
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(l.ArchiveDir(), a.Dir), target); err != nil {
		return fmt.Errorf("restore skill %q: %w", a.Name, err)
	}
	idx, err := l.readArchive()
	if err != nil {
		return err
	}
	idx.Skills = slices.DeleteFunc(idx.Skills, func(x Archived) bool { return x.Dir == a.Dir })
	if err := l.writeArchive(idx); err != nil {
		return err
	}
	p := filepath.Join(l.opts.Dir, curatorDir, usageName)
	recs, err := readUsage(p)
	if err != nil {
		return err
	}
	u := a.Usage
	u.StaleSince, u.RestoredAt = time.Time{}, l.opts.Clock.Now().UTC()
	recs[a.Name] = u
	return writeJSON(p, usageFile{Skills: recs})
}

// dropMerge forgets an undone merge.
func (l *Library) dropMerge(id string) error {
	unlock, err := l.lockRecords()
	if err != nil {
		return err
	}
	defer unlock()
	idx, err := l.readArchive()
	if err != nil {
		return err
	}
	idx.Merges = slices.DeleteFunc(idx.Merges, func(m Merge) bool { return m.ID == id })
	return l.writeArchive(idx)
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
