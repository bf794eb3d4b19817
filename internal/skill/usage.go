package skill

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/filelock"
)

// The curator's records live in DIR/.curator, a hidden folder the walk
// skips: writing them changes neither the skills root's modification time
// nor a skill's, so recording a use does not make the library parse
// itself again.
const (
	curatorDir = ".curator"
	usageName  = "usage.json"
	lockName   = ".lock"
)

// Origin says who put a skill in the skills directory, which decides
// whether the curator may retire it.
type Origin string

// The origins hermes records. A skill without one (written by hand, or
// before hermes recorded origins) is treated as the user's.
const (
	// OriginAgent is a skill the agent wrote with skill_manage, or the
	// curator merged.
	OriginAgent Origin = "agent"
	// OriginUser is a skill installed with hermes skills install.
	OriginUser Origin = "user"
)

// Usage is what hermes knows of one skill's life: who made it, when it
// was made, changed, read and used, and whether the curator marked it
// stale. Times are zero when unknown.
type Usage struct {
	CreatedBy  Origin    `json:"created_by,omitempty"`
	CreatedAt  time.Time `json:"created_at,omitzero"`
	ModifiedAt time.Time `json:"modified_at,omitzero"`
	ViewedAt   time.Time `json:"last_viewed_at,omitzero"`
	UsedAt     time.Time `json:"last_used_at,omitzero"`
	Views      int       `json:"view_count,omitempty"`
	Uses       int       `json:"use_count,omitempty"`
	// RestoredAt is when hermes skills restore last brought it back from
	// the archive.
	RestoredAt time.Time `json:"restored_at,omitzero"`
	// StaleSince is when the curator marked the skill stale; zero when it
	// is not. Viewing, using or changing the skill clears it.
	StaleSince time.Time `json:"stale_since,omitzero"`
}

// LastActivity is the latest of the skill's creation, change, view, use
// and restoring: a skill never used counts from its creation. Zero when
// none is known.
func (u Usage) LastActivity() time.Time {
	last := u.CreatedAt
	for _, t := range []time.Time{u.ModifiedAt, u.ViewedAt, u.UsedAt, u.RestoredAt} {
		if t.After(last) {
			last = t
		}
	}
	return last
}

// Stale reports whether the curator marked the skill stale.
func (u Usage) Stale() bool { return !u.StaleSince.IsZero() }

// usageFile is the content of usage.json.
type usageFile struct {
	Skills map[string]Usage `json:"skills"`
}

// Usage returns the usage records of the skills directory, by skill name.
func (l *Library) Usage() (map[string]Usage, error) {
	if l.opts.Dir == "" {
		return map[string]Usage{}, nil
	}
	return readUsage(filepath.Join(l.opts.Dir, curatorDir, usageName))
}

// UpdateUsage changes the usage records under the records' lock, so two
// processes (hermes serve and a chat) recording at once lose nothing.
func (l *Library) UpdateUsage(fn func(map[string]Usage) error) error {
	if err := l.writable(); err != nil {
		return err
	}
	unlock, err := l.lockRecords()
	if err != nil {
		return err
	}
	defer unlock()
	p := filepath.Join(l.opts.Dir, curatorDir, usageName)
	recs, err := readUsage(p)
	if err != nil {
		return err
	}
	if err := fn(recs); err != nil {
		return err
	}
	return writeJSON(p, usageFile{Skills: recs})
}

// note changes one skill's record. It is best-effort: a record that
// cannot be written is logged, and the read, use or write it follows
// stands.
func (l *Library) note(name string, fn func(*Usage, time.Time)) {
	if l.opts.Dir == "" || name == "" {
		return
	}
	now := l.opts.Clock.Now().UTC()
	err := l.UpdateUsage(func(recs map[string]Usage) error {
		u := recs[name]
		fn(&u, now)
		recs[name] = u
		return nil
	})
	if err != nil {
		l.log.Warn("skill usage not recorded", "skill", name, "error", err)
	}
}

// noteViewed records a skill_view of the skill.
func (l *Library) noteViewed(name string) {
	l.note(name, func(u *Usage, now time.Time) { u.Views++; u.ViewedAt = now; u.StaleSince = time.Time{} })
}

// noteUsed records the skill loaded into a turn (a /name invocation or a
// job's skills).
func (l *Library) noteUsed(name string) {
	l.note(name, func(u *Usage, now time.Time) { u.Uses++; u.UsedAt = now; u.StaleSince = time.Time{} })
}

// noteModified records a change to the skill's files.
func (l *Library) noteModified(name string) {
	l.note(name, func(u *Usage, now time.Time) { u.ModifiedAt = now; u.StaleSince = time.Time{} })
}

// noteCreated starts a new skill's record, by origin.
func (l *Library) noteCreated(name string, by Origin) {
	l.note(name, func(u *Usage, now time.Time) { *u = Usage{CreatedBy: by, CreatedAt: now} })
}

// forget drops a deleted skill's record.
func (l *Library) forget(name string) {
	if l.opts.Dir == "" {
		return
	}
	if err := l.UpdateUsage(func(recs map[string]Usage) error { delete(recs, name); return nil }); err != nil {
		l.log.Warn("skill usage not removed", "skill", name, "error", err)
	}
}

// LockCurator takes the lock of a curator run, waiting for one running in
// another process (hermes serve's and hermes skills curate's), so two
// never archive and merge the same skills at once. The records' own lock
// is separate: skills are read and used while a run waits on the model.
func (l *Library) LockCurator() (unlock func(), err error) {
	if err := l.writable(); err != nil {
		return nil, err
	}
	return lockPath(filepath.Join(l.opts.Dir, curatorDir, "run.lock"))
}

// lockRecords takes the lock of the curator's records, for the short
// read-change-write of one of them.
func (l *Library) lockRecords() (unlock func(), err error) {
	return lockPath(filepath.Join(l.opts.Dir, curatorDir, lockName))
}

// lockPath takes an exclusive lock on the file p, creating it.
func lockPath(p string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	// Without flock (not a Unix), two processes recording at once may
	// lose a record, which only makes a skill look less used than it was.
	if err := filelock.Lock(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

func readUsage(p string) (map[string]Usage, error) {
	var f usageFile
	if err := readJSON(p, &f); err != nil {
		return nil, err
	}
	if f.Skills == nil {
		f.Skills = map[string]Usage{}
	}
	return f.Skills, nil
}

// readJSON reads p into v; a missing file leaves v as it is.
func readJSON(p string, v any) error {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s is not valid JSON: %w", p, err)
	}
	return nil
}

// writeJSON writes v to p atomically: a crash leaves the old file or the
// new one.
func writeJSON(p string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(p, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}
