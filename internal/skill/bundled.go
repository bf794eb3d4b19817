package skill

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// bundledFS holds the skills shipped with hermes, under bundled/<category>/<name>/.
//
//go:embed bundled
var bundledFS embed.FS

// manifestName records, inside the skills directory, which bundled skills
// were installed, at which version, with which file hashes.
const manifestName = ".bundled.json"

// manifest is the content of .bundled.json.
type manifest struct {
	Skills map[string]*manifestEntry `json:"skills"`
}

type manifestEntry struct {
	Category string            `json:"category"`
	Version  string            `json:"version"`
	Files    map[string]string `json:"files"` // relative path -> sha256
}

// bundledSkill is one shipped skill.
type bundledSkill struct {
	name, category, version string
	root                    string            // path inside bundledFS
	files                   map[string][]byte // relative path -> content
}

// Bundled returns the names of the skills shipped with hermes.
func Bundled() []string {
	skills, err := bundledSkills()
	if err != nil {
		return nil
	}
	var names []string
	for _, b := range skills {
		names = append(names, b.name)
	}
	return names
}

// InstallBundled copies the shipped skills into the skills directory dir
// and returns the names it installed or updated. It never overwrites what
// the user changed: a skill is first installed only when no skill of that
// name exists; a later hermes with a newer version replaces only the
// files whose hash still equals the one installed; a skill or file the
// user deleted stays deleted. The record is dir/.bundled.json.
func InstallBundled(dir string) (installed []string, err error) {
	skills, err := bundledSkills()
	if err != nil {
		return nil, err
	}
	manPath := filepath.Join(dir, manifestName)
	man, err := readManifest(manPath)
	if err != nil {
		return nil, err
	}
	_, existing := fingerprint([]root{{dir: dir}})
	changed := false
	for _, b := range skills {
		target := filepath.Join(dir, filepath.FromSlash(b.category), b.name)
		entry := man.Skills[b.name]
		if entry == nil {
			if hasSkillNamed(existing, b.name) || isDir(target) {
				continue // the user's own skill of that name wins
			}
			entry = &manifestEntry{Category: b.category, Version: b.version, Files: map[string]string{}}
			for _, rel := range sortedKeys(b.files) {
				if err := writeAtomic(filepath.Join(target, filepath.FromSlash(rel)), b.files[rel], fileMode(rel)); err != nil {
					return installed, err
				}
				entry.Files[rel] = hashOf(b.files[rel])
			}
			man.Skills[b.name] = entry
			installed = append(installed, b.name)
			changed = true
			continue
		}
		target = filepath.Join(dir, filepath.FromSlash(entry.Category), b.name)
		if !isDir(target) || !newerVersion(b.version, entry.Version) {
			continue // removed by the user, or up to date
		}
		wrote, err := updateBundled(b, entry, target)
		if err != nil {
			return installed, err
		}
		entry.Version = b.version
		changed = true
		if wrote {
			installed = append(installed, b.name)
		}
	}
	if changed {
		data, err := json.MarshalIndent(man, "", "  ")
		if err != nil {
			return installed, err
		}
		if err := writeAtomic(manPath, append(data, '\n'), 0o644); err != nil {
			return installed, err
		}
	}
	return installed, nil
}

// updateBundled writes the files of a newer bundled version that the user
// has not touched.
func updateBundled(b bundledSkill, entry *manifestEntry, target string) (bool, error) {
	wrote := false
	for _, rel := range sortedKeys(b.files) {
		p := filepath.Join(target, filepath.FromSlash(rel))
		recorded, known := entry.Files[rel]
		cur, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) && known:
			continue // the user deleted it
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return wrote, err
		case err == nil && hashOf(cur) == hashOf(b.files[rel]):
			entry.Files[rel] = hashOf(cur) // already the new content
			continue
		case err == nil && (!known || hashOf(cur) != recorded):
			continue // the user's file, or the user edited ours
		}
		if err := writeAtomic(p, b.files[rel], fileMode(rel)); err != nil {
			return wrote, err
		}
		entry.Files[rel] = hashOf(b.files[rel])
		wrote = true
	}
	return wrote, nil
}

// bundledSkills reads the embedded skills.
func bundledSkills() ([]bundledSkill, error) {
	var out []bundledSkill
	err := fs.WalkDir(bundledFS, "bundled", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != FileName {
			return err
		}
		data, err := bundledFS.ReadFile(p)
		if err != nil {
			return err
		}
		sk, err := Parse(p, data)
		if err != nil {
			return err
		}
		dir := path.Dir(p)
		b := bundledSkill{name: sk.Name, version: sk.Version, root: dir, files: map[string][]byte{}}
		b.category = strings.TrimPrefix(path.Dir(dir), "bundled")
		b.category = strings.TrimPrefix(b.category, "/")
		err = fs.WalkDir(bundledFS, dir, func(fp string, fd fs.DirEntry, err error) error {
			if err != nil || fd.IsDir() {
				return err
			}
			content, err := bundledFS.ReadFile(fp)
			if err != nil {
				return err
			}
			b.files[strings.TrimPrefix(fp, dir+"/")] = content
			return nil
		})
		out = append(out, b)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bundled skills: %w", err)
	}
	return out, nil
}

func readManifest(p string) (*manifest, error) {
	man := &manifest{}
	data, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", p, err)
	default:
		if err := json.Unmarshal(data, man); err != nil {
			return nil, fmt.Errorf("%s is not valid JSON (%v); delete it to reinstall the bundled skills", p, err)
		}
	}
	if man.Skills == nil {
		man.Skills = map[string]*manifestEntry{}
	}
	return man, nil
}

func hasSkillNamed(found []candidate, name string) bool {
	for _, c := range found {
		if filepath.Base(c.dir) == name {
			return true
		}
	}
	return false
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func fileMode(rel string) os.FileMode {
	if strings.HasPrefix(rel, "scripts/") {
		return 0o755
	}
	return 0o644
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// newerVersion reports whether version a is newer than b, comparing
// dot-separated parts numerically where both are numbers.
func newerVersion(a, b string) bool {
	pa, pb := strings.Split(strings.TrimPrefix(a, "v"), "."), strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y string
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x == y {
			continue
		}
		nx, ex := strconv.Atoi(orZero(x))
		ny, ey := strconv.Atoi(orZero(y))
		if ex == nil && ey == nil {
			return nx > ny
		}
		return x > y
	}
	return false
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}
