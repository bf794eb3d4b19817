package hermesagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/atomicfile"
)

// FileReport is what an import of files did: the files copied, and the
// ones left as they were because the hermes home has its own.
type FileReport struct {
	Copied, Kept []string
}

// homeFiles are the files of a Hermes home hermes reads where Hermes
// keeps them, by their path in the home; skills/ is copied whole.
func homeFiles() []string {
	return []string{"SOUL.md", filepath.Join("memories", "MEMORY.md"), filepath.Join("memories", "USER.md"), ".env"}
}

// ImportFiles copies into the hermes home to the persona, memories,
// skills and .env of the Hermes home from, each where hermes reads it
// (the same place), unless the hermes home has it already: nothing of
// the hermes home is overwritten. From and to the same directory there
// is nothing to do. Links are not followed, so a link in the Hermes home
// cannot make hermes copy a file from elsewhere. With dryRun nothing is
// written.
func ImportFiles(from, to string, dryRun bool) (FileReport, error) {
	var rep FileReport
	if same(from, to) {
		return rep, nil
	}
	rels := homeFiles()
	skills := filepath.Join(from, "skills")
	err := filepath.WalkDir(skills, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == skills {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(from, p)
			rels = append(rels, rel)
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("read %s: %w", skills, err)
	}
	for _, rel := range rels {
		src, dst := filepath.Join(from, rel), filepath.Join(to, rel)
		info, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) || err == nil && !info.Mode().IsRegular() {
			continue
		}
		if err != nil {
			return rep, err
		}
		if _, err := os.Lstat(dst); err == nil {
			rep.Kept = append(rep.Kept, rel)
			continue
		}
		if !dryRun {
			if err := copyFile(src, dst, info.Mode().Perm()); err != nil {
				return rep, err
			}
		}
		rep.Copied = append(rep.Copied, rel)
	}
	return rep, nil
}

// same reports whether a and b are one directory.
func same(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

// copyFile copies src to dst with mode perm (.env's 0600 kept), by a
// temporary file renamed into place, so a run cut off leaves no half file
// that the next run would take for the hermes home's own.
func copyFile(src, dst string, perm fs.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(dst, data, perm); err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return nil
}
