package skill

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

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
